/* The real symbols beneath the wrappers (see calls.h): looked up once each, on first use. */
#include "intercept/calls.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

struct pario_calls pario_real, pario_next;

/* A missing real symbol turns that wrapper off, said once per name (never exit: the program runs
 * on). Test hook: PARIO_PROFILE_TEST_MISSING=name makes that one symbol look missing. */
void *pario_real_lookup(const char *name) {
  static const char *told[64];
  static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
  const char *test_missing = getenv("PARIO_PROFILE_TEST_MISSING");
  void *p = test_missing && !strcmp(name, test_missing) ? NULL : dlsym(RTLD_NEXT, name);
  if (p) return p;
  pthread_mutex_lock(&lk);
  int k, seen = 0;
  for (k = 0; k < 64 && told[k]; k++)
    if (told[k] == name || !strcmp(told[k], name)) seen = 1;
  if (!seen && k < 64) {
    told[k] = name;
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "pario-preload: %s not found after the profiler; calls to it fail with ENOSYS and are not "
                     "profiled\n",
                     name);
    syscall(SYS_write, 2, msg, (size_t)n);
  }
  pthread_mutex_unlock(&lk);
  return NULL;
}

/* Two threads may resolve one entry at once: both store the same value. */
#define PARIO_CALL_RESOLVE(fn)                                                    \
  __typeof__(fn) *pario_resolve_##fn(void) {                                      \
    if (!pario_real.fn) pario_real.fn = (__typeof__(fn) *)pario_real_lookup(#fn); \
    if (!pario_next.fn) pario_next.fn = pario_real.fn;                            \
    return pario_next.fn;                                                         \
  }
PARIO_CALLS(PARIO_CALL_RESOLVE)
