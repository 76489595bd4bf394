/* NetCDF-4 program of the advise corpus: 1 MiB of doubles per rank in one contiguous variable of
 * a shared NetCDF-4 (HDF5) file, each rank writing its own slab (independent access).
 *
 *   nc4_cases default|aligned DIR
 *
 * default   no alignment asked: the variable's data starts where HDF5 puts it
 * aligned   nc_set_alignment(0, 1 MiB) before the create (netCDF-C 4.9: every HDF5 object of
 *           the files created after it starts on a MiB) */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (131072)

static void check(int err, const char *what) {
  if (err != NC_NOERR) {
    fprintf(stderr, "nc4_cases: %s: %s\n", what, nc_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, nc, dim, var;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "default") && strcmp(argv[1], "aligned"))) check(NC_EINVAL, "usage: nc4_cases default|aligned DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/data.nc", argv[2]);
  double *buf = malloc(N * sizeof *buf);
  for (int i = 0; i < N; i++) buf[i] = rank + i * 1e-6;
  if (argv[1][0] == 'a') check(nc_set_alignment(0, 1 << 20), "nc_set_alignment");
  check(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &nc), "nc_create_par");
  check(nc_def_dim(nc, "n", (size_t)N * size, &dim), "nc_def_dim");
  check(nc_def_var(nc, "x", NC_DOUBLE, 1, &dim, &var), "nc_def_var");
  check(nc_def_var_chunking(nc, var, NC_CONTIGUOUS, NULL), "nc_def_var_chunking");
  check(nc_def_var_fill(nc, var, NC_NOFILL, NULL), "nc_def_var_fill");
  check(nc_enddef(nc), "nc_enddef");
  check(nc_var_par_access(nc, var, NC_INDEPENDENT), "nc_var_par_access");
  size_t start[1] = {(size_t)N * rank}, count[1] = {N};
  check(nc_put_vara_double(nc, var, start, count, buf), "nc_put_vara_double");
  check(nc_close(nc), "nc_close");
  free(buf);
  MPI_Finalize();
  return 0;
}
