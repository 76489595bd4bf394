/* The clock of the interposition layer (see clock.h). */
#include "intercept/clock.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int pario_use_tsc;
static int64_t tick0;
static double mono0, epoch0, tick_s = 1e-9;

static double clock_sec(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double pario_epoch_now(void) { return clock_sec(CLOCK_REALTIME); }

int64_t pario_ticks_slow(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Seconds per tick from the TSC against CLOCK_MONOTONIC since start: cheap on the hot path,
 * exact enough once a millisecond has passed (waited for only by very short programs). */
void pario_calibrate(void) {
#if defined(__x86_64__)
  if (!pario_use_tsc) return;
  double m;
  int64_t t;
  do {
    m = clock_sec(CLOCK_MONOTONIC);
    t = pario_ticks();
  } while (m - mono0 < 1e-3);
  if (t > tick0) tick_s = (m - mono0) / (double)(t - tick0);
#endif
}
double pario_tick_seconds(void) { return tick_s; }
double pario_ticks_to_epoch(double t) { return epoch0 + (t - (double)tick0) * tick_s; }

/* The TSC is a clock only if it ticks at one rate in every P-state and C-state: the kernel says
 * so with both constant_tsc and nonstop_tsc. Read with raw system calls (our wrappers are live). */
static int tsc_invariant(void) {
#if defined(__x86_64__)
  char buf[8192];
  int fd = (int)syscall(SYS_open, "/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *flags = strstr(buf, "\nflags");
  if (!flags) return 0;
  char *eol = strchr(flags + 1, '\n');
  if (eol) *eol = 0;
  return strstr(flags, " constant_tsc") && strstr(flags, " nonstop_tsc");
#else
  return 0;
#endif
}

double pario_clock_start(void) {
  const char *notsc = getenv("PARIO_PROFILE_TEST_NOTSC");
  pario_use_tsc = !(notsc && *notsc && strcmp(notsc, "0") != 0) && tsc_invariant();
  mono0 = clock_sec(CLOCK_MONOTONIC);
  epoch0 = clock_sec(CLOCK_REALTIME);
  tick0 = pario_ticks();
  return epoch0;
}
