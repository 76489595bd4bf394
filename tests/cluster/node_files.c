/* A 3-node profile's known pattern (tests/python/test_cluster_profile.py):
 *
 *   node_files DIR [MIB]
 *
 * every rank writes MIB MiB (1) to its block of DIR/shared.dat (pwrite at rank x MIB MiB), and
 * MIB MiB to /tmp/pario-node-local.dat at (its rank on the node) x MIB MiB: one path, but each
 * node's /tmp is its own, so one file per node, written by that node's ranks only. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void die(const char *what) {
  fprintf(stderr, "node_files: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static void put(const char *path, const char *buf, size_t n, off_t at) {
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  if (fd < 0 || pwrite(fd, buf, n, at) != (ssize_t)n || close(fd)) die(path);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, local;
  MPI_Comm node;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  if (argc < 2) die("usage: node_files DIR [MIB]");
  size_t n = (size_t)(argc > 2 ? atoi(argv[2]) : 1) << 20;
  char *buf = malloc(n), path[4096];
  if (!buf) die("malloc");
  memset(buf, 'a' + rank % 26, n);
  snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
  put(path, buf, n, (off_t)rank * (off_t)n);
  put("/tmp/pario-node-local.dat", buf, n, (off_t)local * (off_t)n);
  MPI_Barrier(MPI_COMM_WORLD);
  if (local == 0) unlink("/tmp/pario-node-local.dat");
  MPI_Comm_free(&node);
  free(buf);
  MPI_Finalize();
  return 0;
}
