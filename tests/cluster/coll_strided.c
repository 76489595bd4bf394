/* Collective writes whose pieces interleave across ranks (IOR's segments), for the per-node
 * aggregator advice on several nodes (tests/python/test_cluster_advise.py):
 *
 *   coll_strided FILE [SEGMENTS [KIB]]
 *
 * segment s of rank r is KIB KiB (64) at offset (s x ranks + r) x KIB KiB, written with
 * MPI_File_write_at_all, SEGMENTS (64) times; hints come from the environment (ROMIO_HINTS). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (!rank) fprintf(stderr, "usage: coll_strided FILE [SEGMENTS [KIB]]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int segments = argc > 2 ? atoi(argv[2]) : 64, kib = argc > 3 ? atoi(argv[3]) : 64;
  size_t n = (size_t)kib << 10;
  char *buf = malloc(n);
  memset(buf, 'a' + rank % 26, n);
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int s = 0; s < segments; s++) {
    MPI_Offset at = ((MPI_Offset)s * size + rank) * (MPI_Offset)n;
    if (MPI_File_write_at_all(fh, at, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_File_close(&fh);
  free(buf);
  MPI_Finalize();
  return 0;
}
