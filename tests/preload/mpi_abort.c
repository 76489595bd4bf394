/* Every rank writes one line of 4 bytes into a file of its own (ARG1.RANK); then the rank named by
 * ARG2 calls MPI_Abort(MPI_COMM_WORLD, 5) while the others wait in a barrier it never reaches.
 * Expected: the aborting rank's log is written in MPI_Abort (reason mpi_abort, error code 5) with
 * its write counted; the MPI ends the others (their logs, if any, end where they were stopped). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", argv[1], rank);
  FILE *f = fopen(path, "w");
  if (!f) return 1;
  fputs("abc\n", f);
  fclose(f);
  if (rank == atoi(argv[2])) MPI_Abort(MPI_COMM_WORLD, 5);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
