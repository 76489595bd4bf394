/* The clock of every intercepted call: raw ticks on the hot path, converted to seconds when
 * they are written. On x86-64 with an invariant TSC (/proc/cpuinfo: constant_tsc and
 * nonstop_tsc) a tick is one TSC count, calibrated against CLOCK_MONOTONIC; otherwise a tick is
 * one nanosecond of CLOCK_MONOTONIC. */
#ifndef PARIO_INTERCEPT_CLOCK_H
#define PARIO_INTERCEPT_CLOCK_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

extern int pario_use_tsc;
int64_t pario_ticks_slow(void);
static inline int64_t pario_ticks(void) {
#if defined(__x86_64__)
  if (__builtin_expect(pario_use_tsc, 1)) {
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (int64_t)(((uint64_t)hi << 32) | lo);
  }
#endif
  return pario_ticks_slow();
}
/* Choose the clock and take the origin (the library's constructor). Test hook:
 * PARIO_PROFILE_TEST_NOTSC=1 forces CLOCK_MONOTONIC. Returns the origin in epoch seconds. */
double pario_clock_start(void);
double pario_tick_seconds(void);       /* seconds per tick, as of the last calibration */
void pario_calibrate(void);            /* measure ticks against CLOCK_MONOTONIC since start */
double pario_ticks_to_epoch(double t); /* tick count -> epoch seconds */
double pario_epoch_now(void);          /* CLOCK_REALTIME, seconds */

#pragma GCC visibility pop
#endif
