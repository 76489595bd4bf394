/* NetCDF-4 programs of the advise corpus for the library-level rules (issue 29). One shared
 * NetCDF-4 (HDF5) file DIR/data.nc with a 1-D record variable x(time), time unlimited: each rank
 * appends its slab of 131072 doubles (1 MiB) of each of RECS records with one collective
 * nc_put_vara_double (netCDF needs collective access to extend the unlimited dimension).
 * nc_set_alignment(64 KiB, 1 MiB): objects of 64 KiB or more (the 1 MiB chunks) start on a MiB, so
 * that each mode has the one defect it stands for.
 *
 *   nc4_lib_cases MODE DIR [RECS]        (RECS: default 4)
 *
 * default   the variable's chunks are netCDF's default (nc_def_var_chunking never called)
 * chunked   nc_def_var_chunking(NC_CHUNKED) with chunks of one rank's slab (131072 doubles) */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (131072)

static void check(int err, const char *what) {
  if (err != NC_NOERR) {
    fprintf(stderr, "nc4_lib_cases: %s: %s\n", what, nc_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, nc, dim, var;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "default") && strcmp(argv[1], "chunked")))
    check(NC_EINVAL, "usage: nc4_lib_cases default|chunked DIR [RECS]");
  int recs = argc > 3 ? atoi(argv[3]) : 4;
  if (recs < 1) check(NC_EINVAL, "RECS");
  char path[4096];
  snprintf(path, sizeof path, "%s/data.nc", argv[2]);
  double *buf = malloc(N * sizeof *buf);
  for (int i = 0; i < N; i++) buf[i] = rank + i * 1e-6;
  check(nc_set_alignment(65536, 1 << 20), "nc_set_alignment");
  check(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &nc), "nc_create_par");
  check(nc_def_dim(nc, "time", NC_UNLIMITED, &dim), "nc_def_dim");
  check(nc_def_var(nc, "x", NC_DOUBLE, 1, &dim, &var), "nc_def_var");
  if (argv[1][0] == 'c') {
    size_t chunk[1] = {N};
    check(nc_def_var_chunking(nc, var, NC_CHUNKED, chunk), "nc_def_var_chunking");
  }
  check(nc_def_var_fill(nc, var, NC_NOFILL, NULL), "nc_def_var_fill");
  check(nc_enddef(nc), "nc_enddef");
  check(nc_var_par_access(nc, var, NC_COLLECTIVE), "nc_var_par_access");
  for (int t = 0; t < recs; t++) {
    size_t start[1] = {((size_t)t * size + rank) * N}, count[1] = {N};
    check(nc_put_vara_double(nc, var, start, count, buf), "nc_put_vara_double");
  }
  check(nc_close(nc), "nc_close");
  free(buf);
  MPI_Finalize();
  return 0;
}
