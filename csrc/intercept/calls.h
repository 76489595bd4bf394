/* The libc calls libpario-preload.so interposes, and the two tables through which it reaches
 * what lies beneath its wrappers.
 *
 *   pario_real: the real symbols (dlsym RTLD_NEXT: libc, or a library preloaded after this one);
 *   pario_next: what a wrapper calls. Each entry is pario_real's, unless a module took the call
 *               over (PARIO_TAKE): the buffer (issue 11) puts its write, close, fsync... here, so
 *               that the profiler's wrappers still see the program's calls while the buffer
 *               decides what reaches the file system, through pario_real.
 *
 * Entries are resolved on first use (a wrapper may run before the library's constructor, from
 * another library's), so go through PARIO_NEXT(fn) / PARIO_REAL(fn), which return NULL only when
 * the symbol does not exist (said once on stderr; that wrapper then fails with ENOSYS).
 * Include after defining _GNU_SOURCE (the library is compiled with -D_GNU_SOURCE). */
#ifndef PARIO_INTERCEPT_CALLS_H
#define PARIO_INTERCEPT_CALLS_H

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* Fortified (_chk, _2) and C99-scanf entry points: glibc declares some of them only under
 * _FORTIFY_SOURCE, so they are declared here, as glibc defines them. */
extern int __open_2(const char *path, int flags);
extern int __open64_2(const char *path, int flags);
extern int __openat_2(int dirfd, const char *path, int flags);
extern ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);
extern ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen);
extern ssize_t __pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen);
extern size_t __fread_chk(void *p, size_t plen, size_t size, size_t n, FILE *fp);
extern char *__fgets_chk(char *s, size_t size, int n, FILE *fp);
extern int __vfprintf_chk(FILE *fp, int flag, const char *fmt, va_list ap);
extern int __isoc99_vfscanf(FILE *fp, const char *fmt, va_list ap);

/* Every interposed libc function, by name; its type is the one the system headers declare. */
/* hand-aligned: one line per group of calls */
// clang-format off
#define PARIO_CALLS(X)                                                                           \
  /* files */                                                                                    \
  X(open) X(open64) X(openat) X(openat64) X(__open_2) X(__open64_2) X(__openat_2) X(creat)       \
  X(creat64) X(close) X(close_range) X(dup) X(dup2) X(dup3) X(chdir) X(fchdir)                   \
  /* data */                                                                                     \
  X(read) X(write) X(__read_chk) X(pread) X(pread64) X(__pread_chk) X(__pread64_chk) X(pwrite)   \
  X(pwrite64) X(readv) X(writev) X(preadv) X(preadv64) X(pwritev) X(pwritev64)                   \
  X(copy_file_range) X(sendfile) X(sendfile64) X(mmap) X(mmap64)                                 \
  /* position, sync, size, metadata */                                                           \
  X(lseek) X(lseek64) X(fsync) X(fdatasync) X(ftruncate) X(ftruncate64) X(fstat) X(fstat64)      \
  X(stat) X(stat64) X(lstat) X(lstat64) X(fstatat) X(fstatat64) X(statx) X(unlink) X(unlinkat)   \
  X(mkdir) X(mkdirat) X(rename) X(renameat) X(renameat2)                                         \
  /* stdio */                                                                                    \
  X(fopen) X(fopen64) X(fdopen) X(fclose) X(fread) X(fread_unlocked) X(__fread_chk) X(fwrite)    \
  X(fwrite_unlocked) X(fputs) X(fputs_unlocked) X(fputc) X(putc) X(fgetc) X(getc) X(fgets)       \
  X(fgets_unlocked) X(__fgets_chk) X(vfprintf) X(__vfprintf_chk) X(puts) X(vfscanf)              \
  X(__isoc99_vfscanf) X(fseek) X(fseeko) X(fseeko64) X(ftello64) X(fflush) X(fflush_unlocked)    \
  /* the process (lifecycle.c) */                                                                \
  X(sigaction) X(signal) X(_exit) X(execve) X(execv) X(execvp) X(execvpe)                        \
  /* passed on by the layer itself (passthru.c) for modules to take: locks, flags, syncs, sizes,  \
   * writes libc makes from inside (dprintf, freopen), programs started without fork */          \
  X(fcntl) X(fcntl64) X(flock) X(sync_file_range) X(syncfs) X(sync) X(fallocate) X(fallocate64)  \
  X(posix_fallocate) X(posix_fallocate64) X(truncate) X(truncate64) X(vdprintf) X(freopen)       \
  X(freopen64) X(closefrom) X(posix_spawn) X(posix_spawnp) X(system) X(popen)
// clang-format on

#pragma GCC visibility push(hidden)

struct pario_calls {
#define PARIO_CALL_FIELD(fn) __typeof__(fn) *fn;
  PARIO_CALLS(PARIO_CALL_FIELD)
#undef PARIO_CALL_FIELD
};
extern struct pario_calls pario_real, pario_next;

/* Resolvers, one per call: fill pario_real.fn (and pario_next.fn unless taken) on first use. */
#define PARIO_CALL_RESOLVER(fn) __typeof__(fn) *pario_resolve_##fn(void);
PARIO_CALLS(PARIO_CALL_RESOLVER)
#undef PARIO_CALL_RESOLVER

#define PARIO_NEXT(fn) (__builtin_expect(pario_next.fn != NULL, 1) ? pario_next.fn : pario_resolve_##fn())
#define PARIO_REAL(fn) \
  (__builtin_expect(pario_real.fn != NULL, 1) ? pario_real.fn : (pario_resolve_##fn(), pario_real.fn))
/* A module takes call fn over: the wrappers call mine, which reaches the file system through
 * PARIO_REAL(fn). Do it in the module's start hook, before the program runs. */
#define PARIO_TAKE(fn, mine) ((void)pario_resolve_##fn(), pario_next.fn = (mine))

/* The definition that follows this library's (dlsym RTLD_NEXT), for names outside the table;
 * on failure say so once on stderr and return NULL. */
void *pario_real_lookup(const char *name);

#pragma GCC visibility pop
#endif
