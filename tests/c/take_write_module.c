/* A module that takes write() over, as the buffer of issue 11 will: it counts the calls and
 * bytes that reach it and passes them on to the real write. Built only into the test library
 * libpario-preload-take.so (ctest intercept_take): the profiler is not changed for it. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "intercept/intercept.h"

static long long calls, bytes;

static ssize_t counted_write(int fd, const void *buf, size_t n) {
  calls++;
  bytes += (long long)n;
  return PARIO_REAL(write)(fd, buf, n);
}

static int start(void) {
  PARIO_TAKE(write, counted_write);
  return 0;
}

static void stop(const char *reason, int partial, int from_signal) {
  char msg[128];
  int k = snprintf(msg, sizeof msg, "take_write: %lld calls, %lld bytes (%s)\n", calls, bytes, reason);
  syscall(SYS_write, 2, msg, (size_t)k);
}

static const struct pario_intercept_module take_write = {.name = "take_write", .start = start, .stop = stop};

__attribute__((constructor(PARIO_REGISTER_PRIORITY))) static void register_take_write(void) {
  pario_intercept_register(&take_write);
}
