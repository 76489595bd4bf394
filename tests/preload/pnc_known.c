/* PnetCDF with known calls (tests/python/test_profile_libs.py). One file, per rank:
 *   "rows"  fixed NROWS*size x ROW doubles: NROWS blocking independent puts of one row each
 *           (ncmpi_put_vara_double, rows interleaved across ranks), inside begin/end_indep_data;
 *   "block" fixed: one collective put of the rank's block (ncmpi_put_vara_double_all), then one
 *           collective get of it (flexible form, ncmpi_get_vara_all with MPI_DOUBLE);
 *   "nb"    record variable: NROWS non-blocking puts of one row (ncmpi_iput_vara_double) and
 *           NROWS buffered ones (ncmpi_bput_vara_double) into records, flushed by one
 *           ncmpi_wait_all(NC_REQ_ALL) each batch;
 *   "many"  fixed: one ncmpi_put_varn_double_all of NROWS rows.
 * The file is created with nc_var_align_size=4096 (argv[2] "noalign": no hint). */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdlib.h>
#include <string.h>

#define NROWS 4
#define ROW 256

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, ncid, dim_r, dim_c, dim_t, v_rows, v_block, v_nb, v_many;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Info info;
  MPI_Info_create(&info);
  if (!(argc > 2 && !strcmp(argv[2], "noalign"))) MPI_Info_set(info, "nc_var_align_size", "4096");
  ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | NC_64BIT_DATA, info, &ncid);
  MPI_Info_free(&info);
  ncmpi_def_dim(ncid, "r", (MPI_Offset)NROWS * size, &dim_r);
  ncmpi_def_dim(ncid, "c", ROW, &dim_c);
  ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dim_t);
  int d2[2] = {dim_r, dim_c}, dt[2] = {dim_t, dim_c};
  ncmpi_def_var(ncid, "rows", NC_DOUBLE, 2, d2, &v_rows);
  ncmpi_def_var(ncid, "block", NC_DOUBLE, 2, d2, &v_block);
  ncmpi_def_var(ncid, "nb", NC_DOUBLE, 2, dt, &v_nb);
  ncmpi_def_var(ncid, "many", NC_DOUBLE, 2, d2, &v_many);
  ncmpi_enddef(ncid);
  static double row[ROW], block[NROWS * ROW];
  ncmpi_begin_indep_data(ncid);
  for (int k = 0; k < NROWS; k++) {
    MPI_Offset start[2] = {(MPI_Offset)k * size + rank, 0}, count[2] = {1, ROW};
    ncmpi_put_vara_double(ncid, v_rows, start, count, row);
  }
  ncmpi_end_indep_data(ncid);
  MPI_Offset start[2] = {(MPI_Offset)rank * NROWS, 0}, count[2] = {NROWS, ROW};
  ncmpi_put_vara_double_all(ncid, v_block, start, count, block);
  ncmpi_get_vara_all(ncid, v_block, start, count, block, -1, MPI_DOUBLE);
  int reqs[NROWS];
  for (int k = 0; k < NROWS; k++) {
    MPI_Offset s[2] = {(MPI_Offset)k * size + rank, 0}, c[2] = {1, ROW};
    ncmpi_iput_vara_double(ncid, v_nb, s, c, row, &reqs[k]);
  }
  ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL);
  ncmpi_buffer_attach(ncid, (MPI_Offset)NROWS * ROW * sizeof(double));
  for (int k = 0; k < NROWS; k++) {
    MPI_Offset s[2] = {(MPI_Offset)(NROWS + k) * size + rank, 0}, c[2] = {1, ROW};
    ncmpi_bput_vara_double(ncid, v_nb, s, c, row, &reqs[k]);
  }
  ncmpi_wait_all(ncid, NROWS, reqs, NULL);
  ncmpi_buffer_detach(ncid);
  MPI_Offset *starts[NROWS], *counts[NROWS], st[NROWS][2], ct[NROWS][2];
  for (int k = 0; k < NROWS; k++) {
    st[k][0] = (MPI_Offset)k * size + rank; st[k][1] = 0; ct[k][0] = 1; ct[k][1] = ROW;
    starts[k] = st[k]; counts[k] = ct[k];
  }
  ncmpi_put_varn_double_all(ncid, v_many, NROWS, starts, counts, block);
  ncmpi_close(ncid);
  MPI_Finalize();
  return 0;
}
