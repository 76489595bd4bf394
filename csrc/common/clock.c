#define _POSIX_C_SOURCE 200809L
#include "common/clock.h"

#include <time.h>

double pario_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pario_wallclock_iso(char *buf, int len) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, (size_t)len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
