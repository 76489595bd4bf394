/* Parallel HDF5 with known calls (tests/python/test_profile_libs.py). One file, MPI-IO driver,
 * collective metadata off unless argv[2] is "collmd"; per rank:
 *   /rows    contiguous NROWS*size x ROW doubles: NROWS independent H5Dwrite of one row each
 *            (regular hyperslab, rows interleaved across ranks);
 *   /block   contiguous, one collective H5Dwrite of the rank's block (regular hyperslab), then one
 *            collective H5Dread of it: HDF5 does both as collective contiguous I/O;
 *   /conv    contiguous doubles written collectively from floats: HDF5 breaks the collective
 *            (type conversion) and says so;
 *   /chunks  chunked (one row per chunk), the rank's block written collectively;
 *   /all     written whole (H5S_ALL) by rank 0 alone, independently.
 * Expected per rank: see the test. */
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define NROWS 8
#define ROW 512

static void rows_of(hid_t file, int rank, int size, hid_t dxpl_coll, hid_t dcpl, const char *name, int coll) {
  hsize_t dims[2] = {(hsize_t)NROWS * size, ROW};
  hid_t fs = H5Screate_simple(2, dims, NULL);
  hid_t d = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  static double buf[NROWS * ROW];
  for (int k = 0; k < NROWS * ROW; k++) buf[k] = rank + k;
  hsize_t start[2] = {(hsize_t)rank * NROWS, 0}, count[2] = {NROWS, ROW};
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  hid_t ms = H5Screate_simple(2, count, NULL);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, coll ? dxpl_coll : H5P_DEFAULT, buf);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int collmd = argc > 2 && !strcmp(argv[2], "collmd");
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
  if (collmd) {
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
  }
  hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  hid_t coll = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(coll, H5FD_MPIO_COLLECTIVE);
  static double row[ROW];

  /* /rows: one independent write per row */
  hsize_t dims[2] = {(hsize_t)NROWS * size, ROW}, one[2] = {1, ROW};
  hid_t fs = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, one, NULL);
  hid_t d = H5Dcreate2(file, "rows", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  for (int k = 0; k < NROWS; k++) {
    hsize_t start[2] = {(hsize_t)k * size + rank, 0};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, row);
  }
  H5Dclose(d);
  H5Sclose(ms);
  H5Sclose(fs);

  /* /block: one collective write, then one collective read */
  rows_of(file, rank, size, coll, H5P_DEFAULT, "block", 1);
  d = H5Dopen2(file, "block", H5P_DEFAULT);
  fs = H5Dget_space(d);
  hsize_t start[2] = {(hsize_t)rank * NROWS, 0}, count[2] = {NROWS, ROW};
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  ms = H5Screate_simple(2, count, NULL);
  static double back[NROWS * ROW];
  H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, coll, back);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);

  /* /conv: collective asked, floats into doubles */
  fs = H5Screate_simple(2, dims, NULL);
  d = H5Dcreate2(file, "conv", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  ms = H5Screate_simple(2, count, NULL);
  static float fbuf[NROWS * ROW];
  H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, coll, fbuf);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(d);

  /* /chunks: a chunk per row */
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, one);
  rows_of(file, rank, size, coll, dcpl, "chunks", 1);
  H5Pclose(dcpl);

  /* /all: rank 0 writes all of a small dataset */
  hsize_t small[1] = {ROW};
  fs = H5Screate_simple(1, small, NULL);
  d = H5Dcreate2(file, "all", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (rank == 0) H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, row);
  H5Dclose(d);
  H5Sclose(fs);

  H5Pclose(coll);
  H5Pclose(fapl);
  H5Fclose(file);
  MPI_Finalize();
  return 0;
}
