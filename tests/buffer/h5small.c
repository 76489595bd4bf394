/* An HDF5 program that writes in small pieces: a chunked, extendible dataset grown one row of 64
 * doubles at a time, plus attributes (test_buffer_programs.py). Object times are not tracked, so
 * two runs write the same bytes. MPI is initialised because the library is the parallel build;
 * the file is opened with the default (sec2, POSIX) driver. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) return 2;
  int rows = atoi(argv[2]);
  hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
  hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
  hsize_t dims[2] = {0, 64}, maxd[2] = {H5S_UNLIMITED, 64}, chunk[2] = {16, 64};
  hid_t space = H5Screate_simple(2, dims, maxd);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  H5Pset_obj_track_times(dcpl, 0);
  hid_t d = H5Dcreate2(f, "rows", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  double row[64];
  for (int r = 0; r < rows; r++) {
    for (int k = 0; k < 64; k++) row[k] = r * 64.0 + k;
    hsize_t nd[2] = {(hsize_t)r + 1, 64}, start[2] = {(hsize_t)r, 0}, count[2] = {1, 64};
    H5Dset_extent(d, nd);
    hid_t fs = H5Dget_space(d);
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t ms = H5Screate_simple(2, count, NULL);
    H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, row);
    H5Sclose(ms);
    H5Sclose(fs);
    if (r % 100 == 0) H5Fflush(f, H5F_SCOPE_LOCAL);
  }
  hid_t as = H5Screate(H5S_SCALAR);
  hid_t a = H5Acreate2(d, "rows", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT, &rows);
  H5Aclose(a);
  H5Sclose(as);
  H5Dclose(d);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Pclose(fcpl);
  H5Fclose(f);
  MPI_Finalize();
  return 0;
}
