/* Every rank (or, with argument "subset", every rank but the last, on a split communicator)
 * writes 4 blocks of 64 KiB collectively into one shared file, then reads them back
 * independently after sync-barrier-sync (MPI's consistency rule for data written by other ranks).
 * Expected per participating rank: 4 collective writes, 2 syncs, 4 independent reads. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int subset = argc > 2 && !strcmp(argv[2], "subset");
  int in = !subset || rank < size - 1;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, in, rank, &comm);
  if (in) {
    int r, n;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    static char buf[65536];
    memset(buf, 'a' + r, sizeof buf);
    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_File_open(comm, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    for (int k = 0; k < 4; k++)
      MPI_File_write_at_all(fh, ((MPI_Offset)k * n + r) * (MPI_Offset)sizeof buf, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(comm);
    MPI_File_sync(fh);
    for (int k = 0; k < 4; k++)
      MPI_File_read_at(fh, ((MPI_Offset)k * n + r) * (MPI_Offset)sizeof buf, buf, sizeof buf, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}
