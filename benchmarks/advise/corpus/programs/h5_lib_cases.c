/* HDF5 programs of the advise corpus for the library-level rules (issue 29). One shared file
 * DIR/data.h5 through the MPI-IO driver; ROWS rows of 64 doubles (512 B) per rank.
 *
 *   h5_lib_cases MODE DIR [ROWS]        (ROWS: default 2048)
 *
 * Every file asks H5Pset_alignment(fapl, 64 KiB, 1 MiB): objects of 64 KiB or more (the datasets,
 * the 1 MiB chunks) start on a MiB, so that each mode has the one defect it stands for.
 *
 * rows         a 2-D dataset of ROWS*size rows, rows interleaved across ranks (row k of rank r is
 *              row k*size + r): one independent H5Dwrite per row, ROWS per rank
 * hyperslab    the same rows, each rank's ROWS rows selected as one strided hyperslab (count ROWS,
 *              stride size) and written in one collective H5Dwrite
 * convert      as hyperslab, but from a buffer of floats into the double dataset: HDF5 converts
 *              the type, and HDF5 1.10 does a converting transfer without collective I/O
 * tiny-chunks  a 1-D dataset chunked by 64 doubles (512 B), each rank writing its contiguous
 *              slab of ROWS*64 doubles in one independent H5Dwrite (ROWS chunks per call)
 * slab-chunks  the same, chunked by one rank's slab (ROWS*64 doubles): one chunk per call
 * meta-indep   DSETS = ROWS/8 datasets of 64 doubles per rank created (collectively, as HDF5
 *              requires; no data written: allocated early, never filled); then the file is closed,
 *              opened again and every dataset opened and its size asked by every rank. Metadata
 *              reads and writes independent (HDF5's default)
 * meta-coll    the same with H5Pset_all_coll_metadata_ops and H5Pset_coll_metadata_write */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW 64   /* doubles per row: 512 B */

static void die(const char *what) {
  fprintf(stderr, "h5_lib_cases: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static hid_t open_file(const char *path, int create, int collmd) {
  hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0) die("H5Pset_fapl_mpio");
  if (collmd && (H5Pset_all_coll_metadata_ops(fapl, 1) < 0 || H5Pset_coll_metadata_write(fapl, 1) < 0))
    die("collective metadata");
  if (H5Pset_alignment(fapl, 65536, 1 << 20) < 0) die("H5Pset_alignment");
  hid_t file = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(path, H5F_ACC_RDONLY, fapl);
  if (file < 0) die(create ? "H5Fcreate" : "H5Fopen");
  H5Pclose(fapl);
  return file;
}

/* rows, hyperslab, convert: the interleaved rows of a 2-D dataset */
static void interleaved(hid_t file, const char *mode, int rank, int size, hsize_t rows) {
  hsize_t dims[2] = {rows * size, ROW};
  hid_t fs = H5Screate_simple(2, dims, NULL);
  hid_t d = H5Dcreate2(file, "x", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) die("H5Dcreate2");
  double *buf = malloc(rows * ROW * sizeof *buf);
  float *fbuf = malloc(rows * ROW * sizeof *fbuf);
  for (hsize_t i = 0; i < rows * ROW; i++) fbuf[i] = (float)(buf[i] = rank + i * 1e-6);
  if (!strcmp(mode, "rows")) {
    hsize_t one[2] = {1, ROW};
    hid_t ms = H5Screate_simple(2, one, NULL);
    for (hsize_t k = 0; k < rows; k++) {
      hsize_t start[2] = {k * size + rank, 0};
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, one, NULL);
      if (H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf + k * ROW) < 0) die("H5Dwrite");
    }
    H5Sclose(ms);
  } else {
    hsize_t start[2] = {(hsize_t)rank, 0}, stride[2] = {(hsize_t)size, 1}, count[2] = {rows, 1},
            block[2] = {1, ROW}, mem[2] = {rows, ROW};
    H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, block);
    hid_t ms = H5Screate_simple(2, mem, NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    int conv = !strcmp(mode, "convert");
    if (H5Dwrite(d, conv ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, ms, fs, dxpl, conv ? (void *)fbuf : (void *)buf) < 0)
      die("H5Dwrite");
    H5Pclose(dxpl);
    H5Sclose(ms);
  }
  free(fbuf);
  free(buf);
  H5Dclose(d);
  H5Sclose(fs);
}

/* tiny-chunks, slab-chunks: each rank's contiguous slab of a chunked 1-D dataset */
static void chunked(hid_t file, hsize_t chunk, int rank, int size, hsize_t n) {
  hsize_t dims[1] = {n * size}, start[1] = {n * rank}, count[1] = {n};
  hid_t fs = H5Screate_simple(1, dims, NULL), ms = H5Screate_simple(1, count, NULL);
  hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 1, &chunk);
  hid_t d = H5Dcreate2(file, "x", H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d < 0) die("H5Dcreate2");
  double *buf = malloc(n * sizeof *buf);
  for (hsize_t i = 0; i < n; i++) buf[i] = rank + i * 1e-6;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  if (H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf) < 0) die("H5Dwrite");
  free(buf);
  H5Pclose(dcpl);
  H5Dclose(d);
  H5Sclose(ms);
  H5Sclose(fs);
}

/* meta-indep, meta-coll: many small datasets made, then opened again by every rank */
static void many_datasets(const char *path, int collmd, int rank, int size, int dsets) {
  hid_t file = open_file(path, 1, collmd);
  hsize_t dims[1] = {(hsize_t)ROW * size};
  hid_t fs = H5Screate_simple(1, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
  char name[32];
  for (int k = 0; k < dsets; k++) {
    snprintf(name, sizeof name, "d%04d", k);
    hid_t d = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) die("H5Dcreate2");
    H5Dclose(d);
  }
  H5Pclose(dcpl);
  H5Sclose(fs);
  H5Fclose(file);
  file = open_file(path, 0, collmd);
  hsize_t total = 0;
  for (int k = 0; k < dsets; k++) {
    snprintf(name, sizeof name, "d%04d", k);
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0) die("H5Dopen2");
    hid_t s = H5Dget_space(d);
    total += (hsize_t)H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(file);
  if (total != (hsize_t)dsets * ROW * size) die("the datasets' sizes");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static const char *modes[] = {"rows", "hyperslab", "convert", "tiny-chunks", "slab-chunks", "meta-indep",
                                "meta-coll"};
  int mode = -1;
  for (int i = 0; argc >= 3 && i < (int)(sizeof modes / sizeof *modes); i++)
    if (!strcmp(argv[1], modes[i])) mode = i;
  if (mode < 0) die("usage: h5_lib_cases rows|hyperslab|convert|tiny-chunks|slab-chunks|meta-indep|meta-coll DIR [ROWS]");
  hsize_t rows = argc > 3 ? strtoull(argv[3], NULL, 10) : 2048;
  if (rows < 8) die("ROWS of at least 8");
  char path[4096];
  snprintf(path, sizeof path, "%s/data.h5", argv[2]);
  if (mode >= 5) {
    many_datasets(path, mode == 6, rank, size, (int)(rows / 8));
  } else {
    hid_t file = open_file(path, 1, 0);
    if (mode <= 2)
      interleaved(file, modes[mode], rank, size, rows);
    else
      chunked(file, mode == 3 ? ROW : rows * ROW, rank, size, rows * ROW);
    H5Fclose(file);
  }
  MPI_Finalize();
  return 0;
}
