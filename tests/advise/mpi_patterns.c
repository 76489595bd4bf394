/* MPI I/O patterns with a known defect, and near-misses without it, for the pario advise tests.
 *
 *   mpi_patterns MODE DIR [N]      N: pieces per rank of indep-small/coll-small (2000)
 *
 * indep-small  each rank writes 1 KiB pieces that alternate with the other ranks' in one shared
 *              file, independently (MPI_File_write_at)     near-miss: coll-small (write_at_all)
 * coll-large   each rank writes its own contiguous 16 MiB of a shared file in 4 MiB collective
 *              writes                                       near-miss: indep-large (write_at)
 * serial       rank 0 writes all 32 MiB, the others wait    near-miss: spread (a file per rank)
 * uneven       rank 0 writes 4x the bytes of the others into a shared file (pwrite)
 *                                                           near-miss: even
 * hints-romio  asks OMPIO for ROMIO-only hints              near-miss: hints-ompio (cb_buffer_size)
 * coll-cbN     coll-large with cb_nodes=N asked
 * ordered      shared-file-pointer writes (MPI_File_write_ordered): Open MPI makes helper files
 * shared-sync  each rank pwrites its own contiguous 16 MiB of a shared file in 1 MiB pieces and
 *              fsyncs it (the servers' time is in the job's: the striping tests on CephFS) */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1 << 20)

static void die(const char *what) {
  fprintf(stderr, "mpi_patterns: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) die("usage: mpi_patterns MODE DIR");
  const char *m = argv[1];
  int pieces = argc > 3 ? atoi(argv[3]) : 2000;
  char path[4096];
  snprintf(path, sizeof path, "%s/shared.dat", argv[2]);
  char *buf = malloc(4 * MIB);
  memset(buf, 'a' + rank, 4 * MIB);
  MPI_Info info = MPI_INFO_NULL;
  MPI_File fh;
  int amode = MPI_MODE_CREATE | MPI_MODE_WRONLY;

  if (!strcmp(m, "indep-small") || !strcmp(m, "coll-small")) {
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh)) die("open");
    for (int i = 0; i < pieces; i++) {
      MPI_Offset off = ((MPI_Offset)i * size + rank) * 1024;
      int rc = m[0] == 'i' ? MPI_File_write_at(fh, off, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_write_at_all(fh, off, buf, 1024, MPI_BYTE, MPI_STATUS_IGNORE);
      if (rc) die("write");
    }
    MPI_File_close(&fh);
  } else if (!strcmp(m, "coll-large") || !strcmp(m, "indep-large") || !strncmp(m, "coll-cb", 7) ||
             !strcmp(m, "hints-romio") || !strcmp(m, "hints-ompio")) {
    MPI_Info_create(&info);
    if (!strncmp(m, "coll-cb", 7)) MPI_Info_set(info, "cb_nodes", m + 7);
    if (!strcmp(m, "hints-romio")) {
      MPI_Info_set(info, "romio_cb_write", "disable");
      MPI_Info_set(info, "romio_ds_write", "disable");
    }
    if (!strcmp(m, "hints-ompio")) MPI_Info_set(info, "cb_buffer_size", "8388608");
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh)) die("open");
    for (int i = 0; i < 4; i++) {
      MPI_Offset off = (MPI_Offset)rank * 16 * MIB + (MPI_Offset)i * 4 * MIB;
      int rc = m[0] == 'i' ? MPI_File_write_at(fh, off, buf, 4 * MIB, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_write_at_all(fh, off, buf, 4 * MIB, MPI_BYTE, MPI_STATUS_IGNORE);
      if (rc) die("write");
    }
    MPI_File_close(&fh);
    MPI_Info_free(&info);
  } else if (!strcmp(m, "serial") || !strcmp(m, "spread")) {
    int mine = m[1] == 'e' ? rank == 0 : 1;
    if (mine) {
      char own[4096];
      snprintf(own, sizeof own, "%s/part.%d", argv[2], m[1] == 'e' ? 0 : rank);
      int fd = open(own, O_CREAT | O_WRONLY | O_TRUNC, 0644);
      if (fd < 0) die("open part");
      int mib = m[1] == 'e' ? 32 : 32 / size;
      for (int i = 0; i < mib; i++)
        if (write(fd, buf, MIB) != MIB) die("write part");
      close(fd);
    }
  } else if (!strcmp(m, "uneven") || !strcmp(m, "even")) {
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0) die("open shared");
    int mib = (m[0] == 'u' && rank == 0) ? 16 : 4;
    for (int i = 0; i < mib; i++)
      if (pwrite(fd, buf, MIB, ((off_t)rank * 16 + i) * MIB) != MIB) die("pwrite");
    close(fd);
  } else if (!strcmp(m, "shared-sync")) {
    /* rank 0 creates the file, then all open it: concurrent O_CREATs of one name through ceph-fuse
       can leave a rank's descriptor on a dentry the kernel dropped, named "(deleted)" in /proc */
    if (rank == 0) {
      int fd0 = open(path, O_CREAT | O_WRONLY, 0644);
      if (fd0 < 0) die("create shared");
      close(fd0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(path, O_WRONLY);
    if (fd < 0) die("open shared");
    for (int i = 0; i < 16; i++)
      if (pwrite(fd, buf, MIB, ((off_t)rank * 16 + i) * MIB) != MIB) die("pwrite");
    if (fsync(fd)) die("fsync");
    close(fd);
  } else if (!strcmp(m, "ordered")) {
    if (MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh)) die("open");
    for (int i = 0; i < 16; i++)
      if (MPI_File_write_ordered(fh, buf, MIB, MPI_BYTE, MPI_STATUS_IGNORE)) die("write_ordered");
    MPI_File_close(&fh);
  } else {
    die("mode");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  free(buf);
  MPI_Finalize();
  return 0;
}
