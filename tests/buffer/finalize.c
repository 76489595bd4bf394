/* Writes N records of 512 bytes to DIR/data.RANK, calls MPI_Finalize, says "finalized" and kills
 * itself with SIGKILL: only what MPI_Finalize wrote out is in the file (test_buffer_semantics.py). */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4200], buf[512];
  snprintf(path, sizeof path, "%s/data.%d", argv[1], rank);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  memset(buf, 'm', sizeof buf);
  for (long k = 0; k < atol(argv[2]); k++)
    if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) return 1;
  MPI_Finalize();
  printf("finalized\n");
  fflush(stdout);
  kill(getpid(), SIGKILL);
  return 0;
}
