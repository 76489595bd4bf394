/* 4 threads: each writes 1000 x 512 B to its own file and 1000 x 512 B with pwrite into one
 * shared fd at distinct offsets. Expected: own files 1000 writes each, shared file 4000. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *dir;
static int shared_fd;

static void *work(void *arg) {
  long t = (long)arg;
  char path[4096], buf[512];
  memset(buf, (int)t, sizeof buf);
  snprintf(path, sizeof path, "%s/thread%ld.dat", dir, t);
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  for (int k = 0; k < 1000; k++) {
    write(fd, buf, sizeof buf);
    pwrite(shared_fd, buf, sizeof buf, ((off_t)k * 4 + t) * 512);
  }
  close(fd);
  return NULL;
}

int main(int argc, char **argv) {
  char path[4096];
  dir = argv[1];
  snprintf(path, sizeof path, "%s/shared.dat", dir);
  shared_fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  pthread_t th[4];
  for (long t = 0; t < 4; t++) pthread_create(&th[t], NULL, work, (void *)t);
  for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
  return close(shared_fd) != 0;
}
