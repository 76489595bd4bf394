/* PnetCDF program of the advise corpus: 1 MiB of doubles per rank in one variable of a shared
 * CDF-5 file, each rank writing its own slab (independent data mode).
 *
 *   pnc_cases default|aligned DIR
 *
 * default   no hints: the variable's data starts where PnetCDF's default alignment puts it
 * aligned   the info hints nc_header_align_size and nc_var_align_size = 1 MiB at create */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (131072)

static void check(int err, const char *what) {
  if (err != NC_NOERR) {
    fprintf(stderr, "pnc_cases: %s: %s\n", what, ncmpi_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, nc, dim, var;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "default") && strcmp(argv[1], "aligned"))) check(NC_EINVAL, "usage: pnc_cases default|aligned DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/data.nc", argv[2]);
  double *buf = malloc(N * sizeof *buf);
  for (int i = 0; i < N; i++) buf[i] = rank + i * 1e-6;
  MPI_Info info = MPI_INFO_NULL;
  if (argv[1][0] == 'a') {
    MPI_Info_create(&info);
    MPI_Info_set(info, "nc_header_align_size", "1048576");
    MPI_Info_set(info, "nc_var_align_size", "1048576");
  }
  check(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &nc), "ncmpi_create");
  check(ncmpi_def_dim(nc, "n", (MPI_Offset)N * size, &dim), "ncmpi_def_dim");
  check(ncmpi_def_var(nc, "x", NC_DOUBLE, 1, &dim, &var), "ncmpi_def_var");
  check(ncmpi_enddef(nc), "ncmpi_enddef");
  check(ncmpi_begin_indep_data(nc), "ncmpi_begin_indep_data");
  MPI_Offset start[1] = {(MPI_Offset)N * rank}, count[1] = {N};
  check(ncmpi_put_vara_double(nc, var, start, count, buf), "ncmpi_put_vara_double");
  check(ncmpi_end_indep_data(nc), "ncmpi_end_indep_data");
  check(ncmpi_close(nc), "ncmpi_close");
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  free(buf);
  MPI_Finalize();
  return 0;
}
