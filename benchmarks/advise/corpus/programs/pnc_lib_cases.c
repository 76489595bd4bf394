/* PnetCDF programs of the advise corpus for the library-level rules (issue 29). One shared CDF-5
 * file DIR/data.nc, a 2-D variable of ROWS*size rows of 64 doubles (512 B), rows interleaved across
 * ranks (row k of rank r is row k*size + r). The file asks nc_var_align_size = 1 MiB (the
 * variable's data starts on a MiB), so that each mode has the one defect it stands for.
 *
 *   pnc_lib_cases MODE DIR [ROWS]        (ROWS: default 2048)
 *
 * put-each    independent data mode: one blocking ncmpi_put_vara_double per row, ROWS per rank
 * iput-batch  every row posted with ncmpi_iput_vara_double, then one ncmpi_wait_all (collective):
 *             PnetCDF joins the ROWS pending requests of each rank into one MPI-IO call */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW 64

static void check(int err, const char *what) {
  if (err != NC_NOERR) {
    fprintf(stderr, "pnc_lib_cases: %s: %s\n", what, ncmpi_strerror(err));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, nc, dims[2], var;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "put-each") && strcmp(argv[1], "iput-batch")))
    check(NC_EINVAL, "usage: pnc_lib_cases put-each|iput-batch DIR [ROWS]");
  MPI_Offset rows = argc > 3 ? strtoll(argv[3], NULL, 10) : 2048;
  if (rows < 1) check(NC_EINVAL, "ROWS");
  char path[4096];
  snprintf(path, sizeof path, "%s/data.nc", argv[2]);
  double *buf = malloc(rows * ROW * sizeof *buf);
  for (MPI_Offset i = 0; i < rows * ROW; i++) buf[i] = rank + i * 1e-6;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nc_var_align_size", "1048576");
  check(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &nc), "ncmpi_create");
  MPI_Info_free(&info);
  check(ncmpi_def_dim(nc, "rows", rows * size, &dims[0]), "ncmpi_def_dim");
  check(ncmpi_def_dim(nc, "cols", ROW, &dims[1]), "ncmpi_def_dim");
  check(ncmpi_def_var(nc, "x", NC_DOUBLE, 2, dims, &var), "ncmpi_def_var");
  check(ncmpi_enddef(nc), "ncmpi_enddef");
  MPI_Offset count[2] = {1, ROW};
  if (argv[1][0] == 'p') {
    check(ncmpi_begin_indep_data(nc), "ncmpi_begin_indep_data");
    for (MPI_Offset k = 0; k < rows; k++) {
      MPI_Offset start[2] = {k * size + rank, 0};
      check(ncmpi_put_vara_double(nc, var, start, count, buf + k * ROW), "ncmpi_put_vara_double");
    }
    check(ncmpi_end_indep_data(nc), "ncmpi_end_indep_data");
  } else {
    int *req = malloc(rows * sizeof *req), *st = malloc(rows * sizeof *st);
    for (MPI_Offset k = 0; k < rows; k++) {
      MPI_Offset start[2] = {k * size + rank, 0};
      check(ncmpi_iput_vara_double(nc, var, start, count, buf + k * ROW, &req[k]), "ncmpi_iput_vara_double");
    }
    check(ncmpi_wait_all(nc, (int)rows, req, st), "ncmpi_wait_all");
    for (MPI_Offset k = 0; k < rows; k++) check(st[k], "a request of ncmpi_wait_all");
    free(st);
    free(req);
  }
  check(ncmpi_close(nc), "ncmpi_close");
  free(buf);
  MPI_Finalize();
  return 0;
}
