/* MPI programs of the advise corpus (benchmarks/advise/corpus), each doing one thing whose truth
 * is written in the corpus: tests/advise/mpi_patterns.c holds the others.
 *
 *   mpi_cases MODE DIR
 *
 * wr-repeat   as IOR -w -r -i 3 does: three times, every rank writes its own 4 MiB block of a
 *             shared file (4 MPI_File_write_at of 1 MiB), closes it, opens it again and reads
 *             the same block back: every read follows the write of the same bytes
 * reread      rank 0 writes a 4 MiB input file; then every rank reads the whole file three
 *             times (MPI_File_read_at, 1 MiB), with no write in between
 * coll-rw     every rank writes its own contiguous 4 MiB of a shared file with 4 collective
 *             MPI_File_write_at_all of 1 MiB, then reads it back with MPI_File_read_at_all
 * indep-rw    the same bytes with MPI_File_write_at / MPI_File_read_at (coll-rw's fix under an
 *             MPI-IO library that makes one aggregator)
 * slow-rank   every rank writes 4 MiB of a shared file in 64 KiB pwrite() calls; the last rank
 *             calls fsync() after each of its writes (the same bytes, slower)
 * even-rank   slow-rank without the fsync calls (its fix)
 * uneven-sync every rank writes its own region of a shared file in 1 MiB pwrite() calls and
 *             fsync()s it once at the end: rank 0 64 MiB, the others 16 MiB each
 * even-sync   the same with 28 MiB per rank (the same 112 MiB in all, balanced: its fix) */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)

static void die(const char *what) {
  fprintf(stderr, "mpi_cases: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void block_io(const char *path, int rank, int write, int coll, char *buf) {
  MPI_File fh;
  int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  if (MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh)) die("open");
  for (int i = 0; i < 4; i++) {
    MPI_Offset off = (MPI_Offset)rank * 4 * MIB + (MPI_Offset)i * MIB;
    int rc = write ? (coll ? MPI_File_write_at_all(fh, off, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_write_at(fh, off, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE))
                   : (coll ? MPI_File_read_at_all(fh, off, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_read_at(fh, off, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE));
    if (rc) die(write ? "write" : "read");
  }
  if (MPI_File_close(&fh)) die("close");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) die("usage: mpi_cases MODE DIR");
  const char *m = argv[1];
  char path[4096];
  snprintf(path, sizeof path, "%s/shared.dat", argv[2]);
  char *buf = malloc(4 * MIB);
  if (!buf) die("malloc");
  memset(buf, 'a' + rank % 26, 4 * MIB);

  if (!strcmp(m, "wr-repeat")) {
    for (int rep = 0; rep < 3; rep++) {
      block_io(path, rank, 1, 0, buf);
      MPI_Barrier(MPI_COMM_WORLD);
      block_io(path, rank, 0, 0, buf);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (!strcmp(m, "reread")) {
    MPI_File fh;
    if (rank == 0) {
      if (MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh)) die("open");
      for (int i = 0; i < 4; i++)
        if (MPI_File_write_at(fh, (MPI_Offset)i * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE)) die("write");
      if (MPI_File_close(&fh)) die("close");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)) die("open");
    for (int pass = 0; pass < 3; pass++)
      for (int i = 0; i < 4; i++)
        if (MPI_File_read_at(fh, (MPI_Offset)i * MIB, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE)) die("read");
    if (MPI_File_close(&fh)) die("close");
  } else if (!strcmp(m, "coll-rw") || !strcmp(m, "indep-rw")) {
    int coll = m[0] == 'c';
    block_io(path, rank, 1, coll, buf);
    MPI_Barrier(MPI_COMM_WORLD);
    block_io(path, rank, 0, coll, buf);
  } else if (!strcmp(m, "slow-rank") || !strcmp(m, "even-rank")) {
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) die("open shared");
    int sync_each = m[0] == 's' && rank == size - 1;
    for (int i = 0; i < 64; i++) {
      off_t off = (off_t)rank * 4 * MIB + (off_t)i * 65536;
      if (pwrite(fd, buf, 65536, off) != 65536) die("pwrite");
      if (sync_each && fsync(fd)) die("fsync");
    }
    if (close(fd)) die("close");
  } else if (!strcmp(m, "uneven-sync") || !strcmp(m, "even-sync")) {
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) die("open shared");
    int mib = m[0] == 'e' ? 112 / size : (rank == 0 ? 64 : 16);
    for (int i = 0; i < mib; i++)
      if (pwrite(fd, buf, MIB, ((off_t)rank * 64 + i) * MIB) != MIB) die("pwrite");
    if (fsync(fd) || close(fd)) die("fsync");
  } else {
    die("mode");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  MPI_Finalize();
  return 0;
}
