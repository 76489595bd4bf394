/* NetCDF with known calls (tests/python/test_profile_libs.py). A parallel netCDF-4 file; per rank:
 *   "temp"  record variable (t unlimited x ROW*size doubles), chunked by the library's default,
 *           collective access: NREC nc_put_vara_double of the rank's ROW values per record;
 *   "fixed" NROWS*size x ROW doubles, a chunk per row (nc_def_var_chunking), independent access
 *           (the default): NROWS nc_put_vara_double of one row, then one nc_get_vara_double of
 *           the rank's first row;
 * and, from rank 0 alone, a classic file (nc_create) with one int variable of ROW values written
 * whole (nc_put_var_int). */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>

#define NREC 3
#define NROWS 4
#define ROW 128

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, ncid, dt, dx, dr, dc, v_temp, v_fixed;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  nc_create_par(argv[1], NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
  nc_def_dim(ncid, "t", NC_UNLIMITED, &dt);
  nc_def_dim(ncid, "x", (size_t)ROW * size, &dx);
  nc_def_dim(ncid, "r", (size_t)NROWS * size, &dr);
  nc_def_dim(ncid, "c", ROW, &dc);
  int d1[2] = {dt, dx}, d2[2] = {dr, dc};
  nc_def_var(ncid, "temp", NC_DOUBLE, 2, d1, &v_temp);
  nc_def_var(ncid, "fixed", NC_DOUBLE, 2, d2, &v_fixed);
  size_t chunk[2] = {1, ROW};
  nc_def_var_chunking(ncid, v_fixed, NC_CHUNKED, chunk);
  nc_enddef(ncid);
  nc_var_par_access(ncid, v_temp, NC_COLLECTIVE);
  static double row[ROW];
  for (int k = 0; k < NREC; k++) {
    size_t start[2] = {(size_t)k, (size_t)rank * ROW}, count[2] = {1, ROW};
    nc_put_vara_double(ncid, v_temp, start, count, row);
  }
  for (int k = 0; k < NROWS; k++) {
    size_t start[2] = {(size_t)k * size + rank, 0}, count[2] = {1, ROW};
    nc_put_vara_double(ncid, v_fixed, start, count, row);
  }
  size_t start[2] = {(size_t)rank, 0}, count[2] = {1, ROW};
  nc_get_vara_double(ncid, v_fixed, start, count, row);
  nc_close(ncid);
  if (rank == 0) {
    char path[4096];
    snprintf(path, sizeof path, "%s.classic", argv[1]);
    int id, d, v;
    static int ints[ROW];
    nc_create(path, NC_CLOBBER, &id);
    nc_def_dim(id, "n", ROW, &d);
    nc_def_var(id, "v", NC_INT, 1, &d, &v);
    nc_enddef(id);
    nc_put_var_int(id, v, ints);
    nc_close(id);
  }
  MPI_Finalize();
  return 0;
}
