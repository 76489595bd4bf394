/* Per-file, per-process records: what the wrappers report becomes counters here.
 *
 * Records live in one fixed arena (the memory bound); a file that does not fit is folded into
 * one "<other files>" record per module, so totals stay exact and the log says how many files
 * were folded. Each record has its own lock: threads working on different files never meet. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "profile/profile.h"
#include "profile/libs.h"
#include "profile/record_io.h"

struct pario_stats pario_stats;

#define NBUCKETS 4096
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pario_rec *table[NBUCKETS];
static struct pario_rec overflow[PARIO_NUM_MODULES];
static struct pario_rec runtime_rec[PARIO_NUM_MODULES];
static struct pario_rec *reduced; /* records this rank owns after the MPI reduction */
static char *arena, *arena_end, *arena_next;
static struct pario_tevent *tbuf;
static atomic_llong tnext;
unsigned char pario_bucket_base[64];
int64_t pario_bucket_edge[64];
struct pario_fd *pario_fdtab;
int pario_fdcap;
static char cwd_cache[PATH_MAX];
static int cwd_valid;

static uint64_t hash_path(const char *s) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a: stable across runs, so ids match across ranks */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h ? h : 1; /* 0 is the overflow record */
}

static void rec_clear(struct pario_rec *r) {
  memset(r->i, 0, sizeof r->i);
  memset(r->f, 0, sizeof r->f);
  memset(r->sizes, 0, sizeof r->sizes);
  memset(r->strides, 0, sizeof r->strides);
  r->sizes_other = r->strides_other = 0;
  r->size_hint = r->stride_hint = 0;
  r->last_end[0] = r->last_end[1] = r->last_start[0] = r->last_start[1] = -1;
  r->last_kind = -1;
  r->touched = 0;
}

static void rec_setup(struct pario_rec *r, uint64_t id, int module, char *path) {
  memset(r, 0, sizeof *r);
  r->id = id;
  r->module = module;
  r->path = path;
  atomic_store(&r->lock, 0);
  rec_clear(r);
}

void *pario_arena_alloc(size_t n) {
  n = (n + 63) & ~(size_t)63; /* records start on a cache line */
  if (!arena || (size_t)(arena_end - arena_next) < n) return NULL;
  void *p = arena_next;
  arena_next += n;
  return p;
}

char *pario_arena_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  pthread_mutex_lock(&table_lock);
  char *p = pario_arena_alloc(n);
  pthread_mutex_unlock(&table_lock);
  if (p) memcpy(p, s, n);
  return p;
}

struct pario_rec *pario_rec_overflow(int module) { return arena ? &overflow[module] : NULL; }

void pario_rec_set_props(struct pario_rec *r, const char *props) {
  if (!r || (r->props && !strcmp(r->props, props))) return;
  char *p = pario_arena_strdup(props);
  pario_lock(&r->lock);
  if (p) r->props = p;
  r->touched = 1;
  pario_unlock(&r->lock);
}

static void bucket_tables(void) {
  static const int64_t edges[] = {
#define EDGE(name, hi) hi,
      PARIO_SIZE_BUCKETS(EDGE)
#undef EDGE
  };
  for (int k = 0; k < 63; k++) { /* sizes are >= 0: octave 63 is never used */
    int64_t lo = (int64_t)1 << k, hi = k < 62 ? lo * 2 : INT64_MAX; /* octave [lo, hi) */
    int base = 0;
    pario_bucket_edge[k] = INT64_MAX;
    for (int b = 0; b < PARIO_NUM_BUCKETS - 1; b++) {
      if (edges[b] <= lo) base++;
      else if (edges[b] < hi) pario_bucket_edge[k] = edges[b];
    }
    pario_bucket_base[k] = (unsigned char)base;
  }
}

int pario_records_init(void) {
  /* the real mmap: this library's own memory is not the program's I/O (and resolving it here,
     at start, lets the log writer use it from a signal handler) */
  __typeof__(mmap) *real_mmap = PARIO_REAL(mmap);
  if (!real_mmap) return -1;
  bucket_tables();
  size_t bound = pario_cfg.mem_bound;
  size_t rec_share = pario_cfg.trace ? bound / 4 : bound;
  /* NORESERVE: pages cost memory only once touched, so the bound is a ceiling, not a charge. */
  arena = real_mmap(NULL, bound, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (arena == MAP_FAILED) { arena = NULL; return -1; }
  arena_next = arena;
  arena_end = arena + rec_share;
  if (pario_cfg.trace) {
    tbuf = (struct pario_tevent *)(arena + rec_share);
    pario_stats.trace_cap = (int64_t)((bound - rec_share) / sizeof(struct pario_tevent));
  }
  for (int m = 0; m < PARIO_NUM_MODULES; m++) rec_setup(&overflow[m], 0, m, "<other files>");
  for (int m = 0; m < PARIO_NUM_MODULES; m++)
    rec_setup(&runtime_rec[m], hash_path(PARIO_RUNTIME_RECORD), m, PARIO_RUNTIME_RECORD);
  struct rlimit rl;
  int cap = 65536;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)cap) cap = (int)rl.rlim_cur;
  if (cap < 1024) cap = 1024;
  struct pario_fd *tab = real_mmap(NULL, sizeof(struct pario_fd) * (size_t)cap, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (tab != MAP_FAILED) { pario_fdtab = tab; pario_fdcap = cap; } /* table first, then its size */
  return 0;
}

static int excluded(const char *path) {
  const char *p = pario_cfg.exclude;
  size_t dl = strlen(pario_cfg.dir);
  if (dl && strncmp(path, pario_cfg.dir, dl) == 0 && (path[dl] == '/' || !path[dl])) return 1;
  if (strncmp(path, "/dev/shm/", 9) == 0) return 0; /* node-local scratch is real I/O */
  while (*p) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n && strncmp(path, p, n) == 0) return 1;
    if (n > 1 && p[n - 1] == '/' && strlen(path) == n - 1 && strncmp(path, p, n - 1) == 0) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

/* '*' matches any characters, '/' included; everything else matches itself. No allocation, no
 * locale: this runs inside open() and stat() of the program. */
static int glob_match(const char *pat, size_t plen, const char *s) {
  size_t p = 0, star = (size_t)-1;
  const char *back = NULL;
  while (*s) {
    if (p < plen && pat[p] == '*') {
      star = ++p;
      back = s;
    } else if (p < plen && pat[p] == *s) {
      p++;
      s++;
    } else if (star != (size_t)-1) {
      p = star;
      s = ++back;
    } else {
      return 0;
    }
  }
  while (p < plen && pat[p] == '*') p++;
  return p == plen;
}

static int runtime_file(const char *path) {
  for (const char *p = pario_cfg.runtime; *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n && glob_match(p, n, path)) return 1;
    if (!e) break;
    p = e + 1;
  }
  return 0;
}

struct pario_rec *pario_rec_get(const char *path, int module) {
  if (!arena || excluded(path)) return NULL;
  if (!pario_cfg.runtime_files && runtime_file(path)) return &runtime_rec[module];
  uint64_t id = hash_path(path);
  unsigned b = (unsigned)(id % NBUCKETS);
  pthread_mutex_lock(&table_lock);
  struct pario_rec *r;
  for (r = table[b]; r; r = r->next)
    if (r->id == id && r->module == module) break;
  if (!r) {
    size_t pl = strlen(path) + 1;
    r = pario_arena_alloc(sizeof *r);
    char *name = r ? pario_arena_alloc(pl) : NULL;
    if (!r || !name) {
      atomic_fetch_add(&pario_stats.dropped_records, 1);
      r = &overflow[module];
    } else {
      memcpy(name, path, pl);
      rec_setup(r, id, module, name);
      r->next = table[b];
      table[b] = r;
    }
  }
  pthread_mutex_unlock(&table_lock);
  return r;
}

void pario_records_each(pario_rec_fn fn, void *arg) {
  for (int b = 0; b < NBUCKETS; b++)
    for (struct pario_rec *r = table[b]; r; r = r->next) fn(r, arg);
  for (int m = 0; m < PARIO_NUM_MODULES; m++) fn(&overflow[m], arg);
  for (int m = 0; m < PARIO_NUM_MODULES; m++) fn(&runtime_rec[m], arg);
}

void pario_records_add_reduced(struct pario_rec *r) { r->next = reduced; reduced = r; }
void pario_records_each_reduced(pario_rec_fn fn, void *arg) {
  for (struct pario_rec *r = reduced; r; r = r->next) fn(r, arg);
}

static void reset_one(struct pario_rec *r, void *arg) {
  atomic_store(&r->lock, 0); /* another thread may have held it at fork time */
  rec_clear(r);
}

void pario_records_reset_after_fork(void) {
  pthread_mutex_init(&table_lock, NULL);
  pario_records_each(reset_one, NULL);
  reduced = NULL;
  atomic_store(&tnext, 0);
  atomic_store(&pario_stats.trace_kept, 0);
  atomic_store(&pario_stats.trace_dropped, 0);
  atomic_store(&pario_stats.dropped_records, 0);
}

/* ---- paths ---- */
void pario_cwd_changed(void) { cwd_valid = 0; }

void pario_abspath(const char *path, char *out, size_t outsz) {
  char tmp[PATH_MAX * 2];
  if (path[0] == '/') {
    snprintf(tmp, sizeof tmp, "%s", path);
  } else {
    pthread_mutex_lock(&table_lock);
    if (!cwd_valid && syscall(SYS_getcwd, cwd_cache, sizeof cwd_cache) > 0) cwd_valid = 1;
    snprintf(tmp, sizeof tmp, "%s/%s", cwd_valid ? cwd_cache : "", path);
    pthread_mutex_unlock(&table_lock);
  }
  /* Lexical normalization: drop "." and empty parts, resolve "..". */
  size_t o = 0;
  char *save = NULL;
  out[0] = 0;
  for (char *part = strtok_r(tmp, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
    if (!strcmp(part, ".")) continue;
    if (!strcmp(part, "..")) {
      while (o > 0 && out[o - 1] != '/') o--;
      if (o > 0) o--;
      out[o] = 0;
      continue;
    }
    size_t n = strlen(part);
    if (o + n + 2 >= outsz) break;
    out[o++] = '/';
    memcpy(out + o, part, n);
    o += n;
    out[o] = 0;
  }
  if (!o) snprintf(out, outsz, "/");
}

/* The name of a descriptor the profiler did not see opened (inherited, copied by fcntl, opened
 * inside libc), from /proc/self/fd (symbolic links resolved). Files seen opened are named by the
 * open call's own path instead (pario_fd_opened): the kernel adds " (deleted)" to the name of a
 * descriptor whose directory entry was dropped, and a FUSE file system drops entries of live files
 * too: ranks that O_CREAT one new name at once through ceph-fuse (one client, one inode) can leave a
 * descriptor on an entry the kernel replaced, and the file was recorded twice, once as
 * "shared.dat (deleted)" (most rounds of 4 creators, tests/python/test_profile_cephfs.py). Here the
 * suffix is dropped when the name without it is the descriptor's own inode now. */
int pario_fd_name(int fd, char *out, size_t outsz) {
  static const char gone[] = " (deleted)";
  const size_t g = sizeof gone - 1;
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = syscall(SYS_readlink, link, out, outsz - 1);
  if (n <= 0) return -1;
  out[n] = 0;
  if (out[0] != '/') return -1; /* pipes, sockets, anon inodes are not files */
  if ((size_t)n > g && !memcmp(out + n - g, gone, g)) {
    struct stat own, named;
    out[n - g] = 0;
    if (syscall(SYS_fstat, fd, &own) == 0 && syscall(SYS_newfstatat, AT_FDCWD, out, &named, 0) == 0 &&
        own.st_dev == named.st_dev && own.st_ino == named.st_ino)
      return 0;
    out[n - g] = gone[0]; /* unlinked, or another file has the name now: the kernel's name stands */
  }
  return 0;
}

/* ---- layout: alignment against the file's real block or stripe size ---- */
#define LUSTRE_SUPER_MAGIC 0x0BD00BD0
void pario_rec_layout(struct pario_rec *r, int fd) {
  if (!r || r->module != PARIO_MOD_POSIX || r->i[PARIO_POSIX_FILE_ALIGNMENT]) return;
  struct statfs sf;
  if (syscall(SYS_fstatfs, fd, &sf) != 0) return;
  int64_t align = sf.f_bsize, count = 1;
  if ((unsigned long)sf.f_type == LUSTRE_SUPER_MAGIC) {
    /* lov_user_md v1/v3: magic u32, pattern u32, object id 16 B, stripe_size u32, stripe_count u16 */
    unsigned char lov[512];
    ssize_t n = fgetxattr(fd, "lustre.lov", lov, sizeof lov);
    uint32_t magic;
    if (n >= 30 && (memcpy(&magic, lov, 4), magic == 0x0BD10BD0 || magic == 0x0BD30BD0)) {
      uint32_t ss; uint16_t sc;
      memcpy(&ss, lov + 24, 4);
      memcpy(&sc, lov + 28, 2);
      if (ss) align = ss;
      count = sc;
    }
  }
  pario_lock(&r->lock);
  r->i[PARIO_POSIX_FILE_ALIGNMENT] = align;
  r->i[PARIO_POSIX_STRIPE_COUNT] = count;
  r->i[PARIO_POSIX_FS_TYPE] = (int64_t)(unsigned long)sf.f_type;
  r->i[PARIO_POSIX_MEM_ALIGNMENT] = pario_cfg.mem_align;
  pario_unlock(&r->lock);
}

/* Where an O_APPEND descriptor's first write lands: the file's end, read with fstat. Seeking
 * there would move the descriptor's offset, which a read before the first write would see. */
static int64_t end_of(int fd) {
  struct stat st;
  return syscall(SYS_fstat, fd, &st) == 0 ? (int64_t)st.st_size : -1;
}

/* ---- fd table (pario_fd() is inline in profile.h) ---- */

static int64_t cur_offset(int fd) { return (int64_t)syscall(SYS_lseek, fd, 0, SEEK_CUR); }

struct pario_rec *pario_fd_posix(int fd) {
  struct pario_fd *e = pario_fd(fd);
  if (!e) return NULL;
  struct pario_rec *r = e->posix;
  if (r == PARIO_UNTRACKED) return NULL;
  if (r) return r;
  /* An fd we did not see opened (inherited, dup'd by fcntl, opened inside libc): name it once. */
  char path[PATH_MAX];
  if (pario_fd_name(fd, path, sizeof path) == 0 && (r = pario_rec_get(path, PARIO_MOD_POSIX))) {
    pario_rec_layout(r, fd);
    int fl = (int)syscall(SYS_fcntl, fd, F_GETFL);
    e->append = fl >= 0 && (fl & O_APPEND);
    e->pos = cur_offset(fd);
    e->posix = r;
    return r;
  }
  e->posix = PARIO_UNTRACKED;
  return NULL;
}

void pario_fd_opened(int fd, const char *name, int flags) {
  struct pario_fd *e = pario_fd(fd);
  char canon[PATH_MAX];
  if (!name) name = pario_fd_name(fd, canon, sizeof canon) == 0 ? canon : NULL;
  struct pario_rec *r = name ? pario_rec_get(name, PARIO_MOD_POSIX) : NULL;
  if (r) pario_rec_layout(r, fd);
  if (!e) return;
  e->stdio = NULL;
  e->posix = r ? r : PARIO_UNTRACKED;
  e->append = (flags & O_APPEND) != 0;
  e->pos = e->append ? end_of(fd) : 0;
}

void pario_fd_closed(int fd) {
  struct pario_fd *e = pario_fd(fd);
  if (e) memset(e, 0, sizeof *e);
}

void pario_fd_dup(int oldfd, int newfd) {
  struct pario_fd *a = pario_fd(oldfd), *b = pario_fd(newfd);
  if (a && b && a != b) { *b = *a; b->stdio = NULL; }
  else if (b) memset(b, 0, sizeof *b);
}

/* ---- updates (the data update itself is in record_io.h) ---- */
#define C(field) (m->field)
void pario_rec_io(struct pario_rec *r, int kind, int64_t off, int64_t size, const void *buf,
                  int64_t t0, int64_t t1, int vector) {
#define CASE(M, K) case 2 * (M) + (K): pario_rec_io_inline(r, M, K, off, size, buf, t0, t1, vector); break;
  switch (2 * r->module + (kind != 0)) {
    CASE(PARIO_MOD_POSIX, PARIO_KIND_READ) CASE(PARIO_MOD_POSIX, PARIO_KIND_WRITE)
    CASE(PARIO_MOD_STDIO, PARIO_KIND_READ) CASE(PARIO_MOD_STDIO, PARIO_KIND_WRITE)
    CASE(PARIO_MOD_MPIIO, PARIO_KIND_READ) CASE(PARIO_MOD_MPIIO, PARIO_KIND_WRITE)
#define LIB_CASES(ID, name, LIST) CASE(PARIO_MOD_##ID, PARIO_KIND_READ) CASE(PARIO_MOD_##ID, PARIO_KIND_WRITE)
    LIB_CASES(H5F, , ) LIB_CASES(H5D, , ) LIB_CASES(PNETCDF_FILE, , ) LIB_CASES(PNETCDF_VAR, , )
    LIB_CASES(NETCDF_FILE, , ) LIB_CASES(NETCDF_VAR, , ) LIB_CASES(ADIOS2_FILE, , ) LIB_CASES(ADIOS2_VAR, , )
#undef LIB_CASES
  }
#undef CASE
}

void pario_rec_meta(struct pario_rec *r, int idx, int64_t t0, int64_t t1) {
  const struct pario_modidx *m = &pario_midx[r->module];
  pario_lock(&r->lock);
  r->touched = 1;
  if (idx >= 0) r->i[idx]++;
  r->f[C(t_meta) - 1] += (double)(t1 - t0);
  pario_unlock(&r->lock);
}

void pario_rec_open(struct pario_rec *r, int idx, int64_t t0, int64_t t1) {
  const struct pario_modidx *m = &pario_midx[r->module];
  pario_rec_meta(r, idx, t0, t1);
  pario_lock(&r->lock);
  if (!r->f[C(ts_open) - 1]) r->f[C(ts_open) - 1] = (double)t0;
  pario_unlock(&r->lock);
  if (pario_cfg.trace) pario_trace(r, PARIO_T_OPEN, -1, 0, t0, t1);
}

void pario_rec_close(struct pario_rec *r, int idx, int64_t t0, int64_t t1) {
  const struct pario_modidx *m = &pario_midx[r->module];
  pario_rec_meta(r, idx, t0, t1);
  pario_lock(&r->lock);
  r->f[C(ts_close) - 1] = (double)t1;
  pario_unlock(&r->lock);
  if (pario_cfg.trace) pario_trace(r, PARIO_T_CLOSE, -1, 0, t0, t1);
}

/* ---- trace ---- */
static __thread uint32_t my_tid;
void pario_trace(struct pario_rec *r, int op, int64_t off, int64_t size, int64_t t0, int64_t t1) {
  if (!tbuf) return;
  long long k = atomic_fetch_add_explicit(&tnext, 1, memory_order_relaxed);
  if (k >= pario_stats.trace_cap) { atomic_fetch_add(&pario_stats.trace_dropped, 1); return; }
  if (!my_tid) my_tid = (uint32_t)syscall(SYS_gettid);
  struct pario_tevent *e = &tbuf[k];
  e->id = r->id; e->module = (uint8_t)r->module; e->op = (uint8_t)op;
  e->off = off; e->size = size; e->t0 = t0; e->t1 = t1; e->tid = my_tid;
  atomic_fetch_add(&pario_stats.trace_kept, 1);
}

struct pario_tevent *pario_trace_events(int64_t *n) {
  long long k = atomic_load(&tnext);
  *n = k < pario_stats.trace_cap ? k : pario_stats.trace_cap;
  return tbuf;
}

/* ---- snapshots: ticks become seconds, per-process spread fields are filled ---- */
void pario_rec_snapshot(struct pario_rec *r, struct pario_rec *out, int nolock) {
  if (!nolock) pario_lock(&r->lock);
  *out = *r;
  if (!nolock) pario_unlock(&r->lock);
  out->next = NULL;
  double tick = pario_tick_seconds();
  int nf = pario_num_f(r->module);
  for (int k = 0; k < nf; k++) {
    const char *kind = pario_counter_kind(r->module, 1, k);
    if (!strcmp(kind, "timestamp")) out->f[k] = out->f[k] ? pario_ticks_to_epoch(out->f[k]) : 0;
    else if (!strcmp(kind, "seconds")) out->f[k] *= tick;
  }
  const struct pario_modidx *m = &pario_midx[r->module];
  int base = pario_rank_base[r->module], fbase = pario_rank_fbase[r->module];
  int64_t bytes = out->i[C(bytes[0]) - 1] + out->i[C(bytes[1]) - 1];
  double t = out->f[C(t[0]) - 1] + out->f[C(t[1]) - 1] + out->f[C(t_meta) - 1];
  int rank = pario_proc.rank < 0 ? 0 : pario_proc.rank;
  out->rank = rank;
  /* NPROCS, FASTEST_RANK, FASTEST_RANK_BYTES, SLOWEST_RANK, SLOWEST_RANK_BYTES follow in order. */
  out->i[base] = 1;
  out->i[base + 1] = rank; out->i[base + 2] = bytes;
  out->i[base + 3] = rank; out->i[base + 4] = bytes;
  out->f[fbase] = t; out->f[fbase + 1] = t; out->f[fbase + 2] = 0; out->f[fbase + 3] = 0;
}

/* A stream opened (or first used) on fd: the stdio record of the file behind it. */
struct pario_rec *pario_fd_stdio(int fd, const char *path, int append) {
  struct pario_fd *e = pario_fd(fd);
  if (!e) return NULL;
  if (!path && e->stdio) return e->stdio == PARIO_UNTRACKED ? NULL : e->stdio;
  /* Named as fopen was asked, as the descriptor's POSIX record (fdopen), or else by /proc. */
  char canon[PATH_MAX];
  struct pario_rec *r = NULL, *posix = e->posix;
  if (path) pario_abspath(path, canon, sizeof canon);
  else if (posix && posix != PARIO_UNTRACKED && posix->path) snprintf(canon, sizeof canon, "%s", posix->path);
  else if (pario_fd_name(fd, canon, sizeof canon) != 0) canon[0] = 0;
  if (canon[0]) r = pario_rec_get(canon, PARIO_MOD_STDIO);
  e->stdio = r ? r : PARIO_UNTRACKED;
  e->spos = path ? (append ? end_of(fd) : 0) : cur_offset(fd);
  return r;
}
