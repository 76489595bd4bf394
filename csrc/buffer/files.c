/* Which descriptors lead to buffered files, and the files themselves (buffer.h).
 *
 * A descriptor's entry is named at open (and copied by dup). A descriptor pario did not see
 * opened (inherited, opened inside libc, or opened read-only while nothing was buffered) costs a
 * table load and nothing more while no file holds data; while one does, it is looked at once
 * with fstat, so that a read through it flushes the data it would read. Entries carry the
 * generation (pario_buf_gen) at which they were looked at: a file becoming buffered later bumps it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buffer/buffer.h"

struct bfd *pario_buf_fdtab;
int pario_buf_fdcap;
atomic_uint pario_buf_gen = 1;

#define MAX_FILES 8192
static struct bfile *files; /* slots, never unmapped: a racing reader never sees freed memory */
static int nfiles_used;     /* high-water slot */
static pario_buf_lock_t table_lock; /* taken before a file's lock, never after */
static atomic_uint next_ofd = 1;

int pario_buf_files_init(void) {
  struct rlimit rl;
  int cap = 1 << 16;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)cap)
    cap = (int)rl.rlim_max;
  if (cap < 1024) cap = 1024;
  void *tab = PARIO_REAL(mmap)(NULL, sizeof(struct bfd) * (size_t)cap, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *fs = PARIO_REAL(mmap)(NULL, sizeof(struct bfile) * MAX_FILES, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (tab == MAP_FAILED || fs == MAP_FAILED) return -1;
  files = fs;
  pario_buf_fdtab = tab;
  pario_buf_fdcap = cap;
  return 0;
}

/* ---- files ---- */
static struct bfile *file_find(dev_t dev, ino_t ino) {
  for (int k = 0; k < nfiles_used; k++)
    if (files[k].used && files[k].dev == dev && files[k].ino == ino) return &files[k];
  return NULL;
}

static struct bfile *file_new(dev_t dev, ino_t ino, size_t cap) {
  for (int k = 0; k < MAX_FILES; k++) {
    struct bfile *f = &files[k];
    if (f->used) continue;
    memset(f, 0, sizeof *f);
    f->used = 1;
    f->dev = dev;
    f->ino = ino;
    f->cap = cap;
    f->wfd = -1;
    if (k >= nfiles_used) nfiles_used = k + 1;
    atomic_fetch_add(&pario_buf_gen, 1);
    return f;
  }
  return NULL;
}

static void file_release(struct bfile *f) { /* table lock held, file flushed */
  if (--f->refs > 0) return;
  pario_buf_mem_put(f->buf, f->cap);
  f->buf = NULL;
  f->used = 0;
}

static int real_fstat(int fd, struct stat *st) { return PARIO_REAL(fstat) ? pario_real.fstat(fd, st) : -1; }

/* An entry not named at open: look at the descriptor once per generation (caller: crit + no lock). */
static struct bfile *classify(int fd, struct bfd *e) {
  unsigned g = atomic_load(&pario_buf_gen);
  struct stat st;
  int err = errno;
  struct bfile *f = NULL;
  if (real_fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    pario_buf_lock(&table_lock);
    f = file_find(st.st_dev, st.st_ino);
    if (f && !e->f) {
      f->refs++;
      e->f = f;
      e->ofd = atomic_fetch_add(&next_ofd, 1);
      int fl = (int)syscall(SYS_fcntl, fd, F_GETFL);
      e->append = fl >= 0 && (fl & O_APPEND);
      e->writable = fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
    }
    pario_buf_unlock(&table_lock);
  }
  e->gen = g;
  errno = err;
  return e->f;
}

struct bfile *pario_buf_get(int fd) {
  struct bfd *e = pario_buf_fd(fd);
  if (!e) return NULL;
  struct bfile *f = e->f;
  if (!f) {
    if (PARIO_LIKELY(atomic_load_explicit(&pario_buf_npending, memory_order_relaxed) == 0)) return NULL;
    if (e->gen == atomic_load_explicit(&pario_buf_gen, memory_order_relaxed)) return NULL;
    pario_crit_enter();
    f = classify(fd, e);
    pario_crit_leave();
    if (!f) return NULL;
  }
  pario_crit_enter();
  pario_buf_lock(&f->lock);
  if (PARIO_UNLIKELY(e->f != f)) { /* closed meanwhile by another thread */
    pario_buf_unlock(&f->lock);
    pario_crit_leave();
    return NULL;
  }
  return f;
}

void pario_buf_put(struct bfile *f) {
  pario_buf_unlock(&f->lock);
  pario_crit_leave();
}

/* The entry of a descriptor number that was closed where pario could not see it (inside libc). */
static void forget(struct bfd *e) {
  pario_crit_enter();
  pario_buf_lock(&table_lock);
  struct bfile *f = e->f;
  if (f) {
    pario_buf_lock(&f->lock);
    if (f->refs == 1) pario_buf_flush(f, WHY_CLOSE);
    file_release(f);
    pario_buf_unlock(&f->lock);
  }
  memset(e, 0, sizeof *e);
  pario_buf_unlock(&table_lock);
  pario_crit_leave();
}

void pario_buf_opened(int fd, int dirfd, const char *path, int flags) {
  struct bfd *e = pario_buf_fd(fd);
  if (!e) return;
  int err = errno;
  if (e->f) forget(e);
  memset(e, 0, sizeof *e);
  if (flags & O_PATH) return;
  int writable = (flags & O_ACCMODE) != O_RDONLY;
  unsigned g = atomic_load(&pario_buf_gen);
  /* read-only descriptors are looked at lazily (pario_buf_get), only while a file holds data:
   * their generation stays 0, "not looked at" */
  if (!writable) {
    errno = err;
    return;
  }
  struct stat st;
  if (real_fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) goto out;
  size_t size = 0;
  char abs[PATH_MAX];
  abs[0] = 0;
  if (path && !(flags & (O_DIRECT | O_SYNC | O_DSYNC))) { /* the program asked for its own durability */
    pario_buf_abspath(dirfd, path, abs, sizeof abs);
    size = pario_buf_size_for(abs);
  }
  pario_crit_enter();
  pario_buf_lock(&table_lock);
  struct bfile *f = file_find(st.st_dev, st.st_ino);
  if (!f && size) {
    f = file_new(st.st_dev, st.st_ino, size);
    g = atomic_load(&pario_buf_gen);
  }
  if (f) {
    f->refs++;
    if (!f->st && abs[0]) f->st = pario_buf_stat_for(abs, 0, f->cap);
    if (f->st && size) f->st->opens++;
    e->f = f;
    e->ofd = atomic_fetch_add(&next_ofd, 1);
    e->append = !!(flags & O_APPEND);
    e->writable = 1;
  }
  pario_buf_unlock(&table_lock);
  pario_crit_leave();
out:
  e->gen = g;
  errno = err;
}

/* The program's standard output, when the shell or the launcher made it a regular file
 * (`./app > out`): buffered like a file the program opened itself (its path decides, as for
 * --files). Standard error is left alone: its messages should be in the file when they are
 * written, crash or not. */
void pario_buf_adopt_stdout(void) {
  char link[64], path[PATH_MAX];
  int fl = (int)syscall(SYS_fcntl, 1, F_GETFL);
  if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) return;
  snprintf(link, sizeof link, "/proc/self/fd/%d", 1);
  ssize_t n = syscall(SYS_readlink, link, path, sizeof path - 1);
  if (n <= 0 || path[0] != '/') return;
  path[n] = 0;
  pario_buf_opened(1, AT_FDCWD, path, fl & ~O_TRUNC);
}

void pario_buf_closing(int fd) {
  struct bfile *f = pario_buf_get(fd);
  if (!f) {
    struct bfd *e = pario_buf_fd(fd);
    if (e) memset(e, 0, sizeof *e);
    return;
  }
  pario_buf_flush(f, WHY_CLOSE);
  pario_buf_put(f);
}

int pario_buf_closed_error(int fd) {
  struct bfd *e = pario_buf_fd(fd);
  if (!e || !e->f) return 0;
  pario_crit_enter();
  pario_buf_lock(&table_lock);
  struct bfile *f = e->f;
  int err = 0;
  pario_buf_lock(&f->lock);
  err = f->err;
  f->err = 0;
  e->f = NULL;
  file_release(f);
  pario_buf_unlock(&f->lock);
  pario_buf_unlock(&table_lock);
  memset(e, 0, sizeof *e);
  pario_crit_leave();
  return err;
}

void pario_buf_dup(int oldfd, int newfd) {
  struct bfd *a = pario_buf_fd(oldfd), *b = pario_buf_fd(newfd);
  if (!b || oldfd == newfd) return;
  pario_crit_enter();
  pario_buf_lock(&table_lock);
  if (b->f) file_release(b->f);
  memset(b, 0, sizeof *b);
  if (a && a->f) {
    *b = *a;
    b->f->refs++;
  }
  pario_buf_unlock(&table_lock);
  pario_crit_leave();
}

void pario_buf_refresh_flags(int fd) {
  struct bfd *e = pario_buf_fd(fd);
  if (!e || !e->f) return;
  int fl = (int)syscall(SYS_fcntl, fd, F_GETFL);
  if (fl >= 0) e->append = !!(fl & O_APPEND);
}

/* A path about to be truncated, opened with O_TRUNC or looked at by stat: flush the file it
 * names, if it holds data (one stat, only while some file does). */
void pario_buf_flush_path(const char *path, int dirfd, int why) {
  if (!path || atomic_load(&pario_buf_npending) == 0) return;
  struct stat st;
  int err = errno;
  int rc = dirfd == AT_FDCWD ? (int)syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0)
                             : (int)syscall(SYS_newfstatat, dirfd, path, &st, 0);
  errno = err;
  if (rc != 0) return;
  pario_crit_enter();
  pario_buf_lock(&table_lock);
  struct bfile *f = file_find(st.st_dev, st.st_ino);
  if (f) {
    pario_buf_lock(&f->lock);
    pario_buf_flush(f, why);
    pario_buf_unlock(&f->lock);
  }
  pario_buf_unlock(&table_lock);
  pario_crit_leave();
}

void pario_buf_flush_all(int why, int from_signal) {
  /* From a signal handler no thread of ours holds a file we would wait for forever: the
   * interrupted thread was outside its critical sections (intercept.h), others leave theirs. */
  (void)from_signal;
  pario_crit_enter();
  for (int k = 0; k < nfiles_used; k++) {
    struct bfile *f = &files[k];
    if (!f->used || !f->len) continue;
    pario_buf_lock(&f->lock);
    if (f->used) pario_buf_flush(f, why);
    pario_buf_unlock(&f->lock);
  }
  pario_crit_leave();
}

void pario_buf_lock_all(void) {
  pario_crit_enter();
  pario_buf_lock(&table_lock);
  for (int k = 0; k < nfiles_used; k++) {
    pario_buf_lock(&files[k].lock);
    if (files[k].used) pario_buf_flush(&files[k], WHY_FORK);
  }
}

void pario_buf_unlock_all(int child) {
  for (int k = 0; k < nfiles_used; k++) {
    if (child) files[k].err = 0; /* the parent reports its own errors */
    pario_buf_unlock(&files[k].lock);
  }
  pario_buf_unlock(&table_lock);
  pario_crit_leave();
}
