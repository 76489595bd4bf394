/* HDF5 program of the advise corpus: 1 MiB of doubles per rank in one
 * contiguous dataset of a shared file, each rank writing its own slab independently.
 *
 *   h5_cases default|aligned DIR
 *
 * default   no alignment asked: the dataset's data starts where HDF5 puts it (after the
 *           superblock and the object header, not on a file system block)
 * aligned   H5Pset_alignment(fapl, 0, 1 MiB): every object of 1 MiB or more starts on a MiB */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (131072)   /* doubles per rank: 1 MiB */

static void die(const char *what) {
  fprintf(stderr, "h5_cases: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "default") && strcmp(argv[1], "aligned"))) die("usage: h5_cases default|aligned DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/data.h5", argv[2]);
  double *buf = malloc(N * sizeof *buf);
  for (int i = 0; i < N; i++) buf[i] = rank + i * 1e-6;
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0) die("H5Pset_fapl_mpio");
  if (argv[1][0] == 'a' && H5Pset_alignment(fapl, 0, 1 << 20) < 0) die("H5Pset_alignment");
  hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0) die("H5Fcreate");
  hsize_t dims[1] = {(hsize_t)N * size}, start[1] = {(hsize_t)N * rank}, count[1] = {N};
  hid_t fspace = H5Screate_simple(1, dims, NULL), mspace = H5Screate_simple(1, count, NULL);
  hid_t dset = H5Dcreate2(file, "x", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (dset < 0) die("H5Dcreate2");
  H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
  if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, buf) < 0) die("H5Dwrite");
  H5Dclose(dset); H5Sclose(mspace); H5Sclose(fspace); H5Fclose(file); H5Pclose(fapl);
  free(buf);
  MPI_Finalize();
  return 0;
}
