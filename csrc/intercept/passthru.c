/* Calls the profiler does not record but a module may need to see (calls.h, last group): the
 * layer exports each one and passes it to the next layer, PARIO_NEXT(fn), which is the real
 * symbol unless a module took the call over (the buffer flushes before a lock is released, a
 * file is truncated or a program is started without fork). Nothing is recorded here. */
#include <errno.h>
#include <stdarg.h>

#include "intercept/intercept.h"

#define NOSYM(v)      \
  do {                \
    errno = ENOSYS;   \
    return v;         \
  } while (0)
#define PASS(ret_t, fn, params, args, fail) \
  ret_t fn params {                         \
    if (!PARIO_NEXT(fn)) NOSYM(fail);       \
    return pario_next.fn args;              \
  }

/* fcntl's third argument is an int or a pointer: read it as glibc's own fcntl does. */
int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (!PARIO_NEXT(fcntl)) NOSYM(-1);
  return pario_next.fcntl(fd, cmd, arg);
}
int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  if (!PARIO_NEXT(fcntl64)) NOSYM(-1);
  return pario_next.fcntl64(fd, cmd, arg);
}

PASS(int, flock, (int fd, int op), (fd, op), -1)
PASS(int, sync_file_range, (int fd, off64_t off, off64_t n, unsigned fl), (fd, off, n, fl), -1)
PASS(int, syncfs, (int fd), (fd), -1)
PASS(int, fallocate, (int fd, int mode, off_t off, off_t len), (fd, mode, off, len), -1)
PASS(int, fallocate64, (int fd, int mode, off64_t off, off64_t len), (fd, mode, off, len), -1)
PASS(int, truncate, (const char *p, off_t len), (p, len), -1)
PASS(int, truncate64, (const char *p, off64_t len), (p, len), -1)
PASS(FILE *, freopen, (const char *p, const char *m, FILE *fp), (p, m, fp), NULL)
PASS(FILE *, freopen64, (const char *p, const char *m, FILE *fp), (p, m, fp), NULL)
PASS(int, system, (const char *cmd), (cmd), -1)
PASS(FILE *, popen, (const char *cmd, const char *m), (cmd, m), NULL)
PASS(int, vdprintf, (int fd, const char *fmt, va_list ap), (fd, fmt, ap), -1)

/* posix_fallocate returns the error instead of setting errno. */
int posix_fallocate(int fd, off_t off, off_t len) { return PARIO_NEXT(posix_fallocate) ? pario_next.posix_fallocate(fd, off, len) : ENOSYS; }
int posix_fallocate64(int fd, off64_t off, off64_t len) {
  return PARIO_NEXT(posix_fallocate64) ? pario_next.posix_fallocate64(fd, off, len) : ENOSYS;
}
int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
                char *const argv[], char *const envp[]) {
  return PARIO_NEXT(posix_spawn) ? pario_next.posix_spawn(pid, path, fa, at, argv, envp) : ENOSYS;
}
int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
                 char *const argv[], char *const envp[]) {
  return PARIO_NEXT(posix_spawnp) ? pario_next.posix_spawnp(pid, file, fa, at, argv, envp) : ENOSYS;
}

void sync(void) {
  if (PARIO_NEXT(sync)) pario_next.sync();
}
void closefrom(int lowfd) {
  if (PARIO_NEXT(closefrom)) pario_next.closefrom(lowfd);
}

/* dprintf formats through vdprintf, whose writes libc makes from inside (unseen by write()). */
int dprintf(int fd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = PARIO_NEXT(vdprintf) ? pario_next.vdprintf(fd, fmt, ap) : (errno = ENOSYS, -1);
  va_end(ap);
  return r;
}
