/* File per process: each rank writes N records of 100 bytes to DIR/out.RANK with write(), and a
 * line per 1000 records with fprintf to DIR/log.RANK (test_buffer_programs.py, test_buffer_cli.py). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) return 2;
  long n = atol(argv[2]);
  char path[4200], rec[100];
  snprintf(path, sizeof path, "%s/out.%d", argv[1], rank);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  snprintf(path, sizeof path, "%s/log.%d", argv[1], rank);
  FILE *log = fopen(path, "w");
  if (fd < 0 || !log) return 3;
  for (long k = 0; k < n; k++) {
    memset(rec, 'a' + (int)((k + rank) % 26), sizeof rec);
    snprintf(rec, sizeof rec, "%d %ld", rank, k);
    rec[strlen(rec)] = ' ';
    rec[sizeof rec - 1] = '\n';
    if (write(fd, rec, sizeof rec) != (ssize_t)sizeof rec) return 4;
    if (k % 1000 == 0) fprintf(log, "rank %d record %ld\n", rank, k);
  }
  close(fd);
  fclose(log);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
