/* A loop of one I/O library call, timed by itself (benchmarks/profile_overhead/libcalls.py):
 *
 *   libloop h5write   COUNT DIR   H5Dwrite of one 8-byte element (a regular hyperslab) to a
 *                                 contiguous dataset of an in-memory file (core driver: no
 *                                 system calls, the library's own cost only)
 *   libloop ncput     COUNT DIR   nc_put_vara_double of one element of a classic netCDF file
 *                                 (written to its buffer; flushed at close, after the timing)
 *   libloop pncput    COUNT DIR   ncmpi_iput_vara_double of one element (posted, not waited:
 *                                 the post is what a call costs; one wait_all after the timing)
 *   libloop a2put     COUNT DIR   adios2_put (deferred) of a one-element local array, one step
 *
 * Prints the loop's seconds per call. Run as a single MPI process (no launcher needed). */
#include <adios2_c.h>
#include <hdf5.h>
#include <mpi.h>
#include <netcdf.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: libloop h5write|ncput|pncput|a2put COUNT DIR\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  const char *what = argv[1], *dir = argv[3];
  long count = atol(argv[2]);
  char path[4096];
  double x = 1.0, t0 = 0, t1 = 0;
  if (!strcmp(what, "h5write")) {
    snprintf(path, sizeof path, "%s/libloop.h5", dir);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_core(fapl, 1 << 20, 0); /* in memory, never written */
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t n = 1024, one = 1;
    hid_t fs = H5Screate_simple(1, &n, NULL), ms = H5Screate_simple(1, &one, NULL);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    t0 = now();
    for (long k = 0; k < count; k++) {
      hsize_t start = (hsize_t)(k % 1024);
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL);
      H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &x);
    }
    t1 = now();
    H5Dclose(d); H5Sclose(fs); H5Sclose(ms); H5Fclose(f); H5Pclose(fapl);
  } else if (!strcmp(what, "ncput")) {
    snprintf(path, sizeof path, "%s/libloop.nc", dir);
    int id, dim, v;
    nc_create(path, NC_CLOBBER, &id);
    nc_def_dim(id, "n", 1024, &dim);
    nc_def_var(id, "v", NC_DOUBLE, 1, &dim, &v);
    nc_enddef(id);
    t0 = now();
    for (long k = 0; k < count; k++) {
      size_t start = (size_t)(k % 1024), one = 1;
      nc_put_vara_double(id, v, &start, &one, &x);
    }
    t1 = now();
    nc_close(id);
  } else if (!strcmp(what, "pncput")) {
    snprintf(path, sizeof path, "%s/libloop.pnc", dir);
    int id, dim, v, req;
    ncmpi_create(MPI_COMM_SELF, path, NC_CLOBBER, MPI_INFO_NULL, &id);
    ncmpi_def_dim(id, "n", 1024, &dim);
    ncmpi_def_var(id, "v", NC_DOUBLE, 1, &dim, &v);
    ncmpi_enddef(id);
    t0 = now();
    for (long k = 0; k < count; k++) {
      MPI_Offset start = k % 1024, one = 1;
      ncmpi_iput_vara_double(id, v, &start, &one, &x, &req);
    }
    t1 = now();
    ncmpi_wait_all(id, NC_REQ_ALL, NULL, NULL);
    ncmpi_close(id);
  } else if (!strcmp(what, "a2put")) {
    snprintf(path, sizeof path, "%s/libloop.bp", dir);
    adios2_adios *ad = adios2_init_mpi(MPI_COMM_SELF);
    adios2_io *io = adios2_declare_io(ad, "loop");
    size_t one = 1;
    adios2_variable *var = adios2_define_variable(io, "x", adios2_type_double, 1, NULL, NULL, &one,
                                                  adios2_constant_dims_true);
    adios2_engine *e = adios2_open(io, path, adios2_mode_write);
    adios2_step_status st;
    adios2_begin_step(e, adios2_step_mode_append, -1.0f, &st);
    t0 = now();
    for (long k = 0; k < count; k++) adios2_put(e, var, &x, adios2_mode_deferred);
    t1 = now();
    adios2_end_step(e);
    adios2_close(e);
    adios2_finalize(ad);
  } else {
    fprintf(stderr, "libloop: unknown call %s\n", what);
    MPI_Finalize();
    return 2;
  }
  printf("%.9g\n", (t1 - t0) / count);
  MPI_Finalize();
  return 0;
}
