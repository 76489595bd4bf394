/* The per-process log (schemas/profile-log.schema.json): one JSON document per process image,
 * written atomically (tmp file, fsync, rename) with raw system calls into a buffer mapped with
 * the real mmap (resolved at start by pario_records_init), so it runs from a signal handler and
 * never re-enters the wrappers or malloc.
 *
 * csrc/common's JSON writer allocates with malloc and is not signal-safe, hence this small one. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "profile/libs.h"
#include "profile/profile.h"

#ifndef PARIO_VERSION
#define PARIO_VERSION "0.0.0"
#endif

struct out { char *p; size_t len, cap; int fail; };

static void put(struct out *o, const char *s, size_t n) {
  if (o->fail) return;
  if (o->len + n + 1 > o->cap) {
    size_t cap = o->cap ? o->cap : 1 << 16;
    while (o->len + n + 1 > cap) cap *= 2;
    void *p = o->p ? mremap(o->p, o->cap, cap, MREMAP_MAYMOVE)
                   : PARIO_REAL(mmap)(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { o->fail = 1; return; }
    o->p = p;
    o->cap = cap;
  }
  memcpy(o->p + o->len, s, n);
  o->len += n;
}
static void puts_(struct out *o, const char *s) { put(o, s, strlen(s)); }
static void putf(struct out *o, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) put(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
static void put_str(struct out *o, const char *s) {
  put(o, "\"", 1);
  for (; s && *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') { put(o, "\\", 1); put(o, (const char *)&c, 1); }
    else if (c < 0x20) putf(o, "\\u%04x", c);
    else put(o, (const char *)&c, 1);
  }
  put(o, "\"", 1);
}
static void put_dbl(struct out *o, double v) {
  if (!isfinite(v)) puts_(o, "null");
  else putf(o, "%.16g", v);
}

static void put_names(struct out *o, int m) {
  for (int isf = 0; isf < 2; isf++) {
    int n = isf ? pario_num_f(m) : pario_num_i(m);
    puts_(o, isf ? ",\"fcounters\":[" : "\"counters\":[");
    for (int k = 0; k < n; k++) {
      if (k) puts_(o, ",");
      put_str(o, pario_counter_name(m, isf, k));
    }
    puts_(o, isf ? "],\"fkinds\":[" : "],\"kinds\":[");
    for (int k = 0; k < n; k++) {
      if (k) puts_(o, ",");
      put_str(o, pario_counter_kind(m, isf, k));
    }
    static const char *ops[] = {"sum", "max", "min", "rank"};
    puts_(o, isf ? "],\"fops\":[" : "],\"ops\":[");
    for (int k = 0; k < n; k++) {
      if (k) puts_(o, ",");
      put_str(o, ops[pario_counter_op(m, isf, k)]);
    }
    puts_(o, "]");
  }
}

static void put_top(struct out *o, const char *key, const struct pario_top *t, int64_t other) {
  putf(o, ",\"%s\":[", key);
  for (int k = 0; k < PARIO_TOPN && t[k].cnt; k++) putf(o, "%s[%lld,%lld]", k ? "," : "", (long long)t[k].val, (long long)t[k].cnt);
  putf(o, "],\"%s_other\":%lld", key, (long long)other);
}

static void put_record(struct out *o, const struct pario_rec *r) {
  int m = r->module;
  putf(o, "{\"id\":\"%016llx\",\"path\":", (unsigned long long)r->id);
  put_str(o, r->path);
  putf(o, ",\"rank\":%d,\"c\":[", r->rank);
  for (int k = 0; k < pario_num_i(m); k++) putf(o, "%s%lld", k ? "," : "", (long long)r->i[k]);
  puts_(o, "],\"fc\":[");
  for (int k = 0; k < pario_num_f(m); k++) {
    if (k) puts_(o, ",");
    put_dbl(o, r->f[k]);
  }
  puts_(o, "]");
  put_top(o, "sizes", r->sizes, r->sizes_other);
  put_top(o, "strides", r->strides, r->strides_other);
  if (r->hints) { puts_(o, ",\"hints\":"); put_str(o, r->hints); }
  if (r->props) { puts_(o, ",\"props\":"); put_str(o, r->props); }
  if (r->node[0]) { puts_(o, ",\"node\":"); put_str(o, r->node); }
  puts_(o, "}");
}

struct walk { struct out *o; int module, nolock, count; };
static void emit_live(struct pario_rec *r, void *arg) {
  struct walk *w = arg;
  if (r->module != w->module || !r->touched || r->moved) return;
  struct pario_rec snap;
  pario_rec_snapshot(r, &snap, w->nolock);
  if (w->count++) puts_(w->o, ",");
  put_record(w->o, &snap);
}
static void emit_reduced(struct pario_rec *r, void *arg) {
  struct walk *w = arg;
  if (r->module != w->module) return;
  if (w->count++) puts_(w->o, ",");
  put_record(w->o, r);
}
static void any_touched(struct pario_rec *r, void *arg) { if (r->touched) *(int *)arg = 1; }
struct has { int module, yes; };
static void module_touched(struct pario_rec *r, void *arg) {
  struct has *h = arg;
  if (r->module == h->module && r->touched && !r->moved) h->yes = 1;
}
static void module_reduced(struct pario_rec *r, void *arg) {
  struct has *h = arg;
  if (r->module == h->module) h->yes = 1;
}

static void put_file(struct out *o, const char *path) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  char buf[4096];
  ssize_t n = fd >= 0 ? syscall(SYS_read, fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0) syscall(SYS_close, fd);
  puts_(o, "[");
  for (ssize_t k = 0, first = 1; n > 0 && k < n; first = 0) {
    if (!first) puts_(o, ",");
    put_str(o, buf + k);
    k += (ssize_t)strlen(buf + k) + 1;
  }
  puts_(o, "]");
}

static void put_trace(struct out *o) {
  int64_t n;
  struct pario_tevent *ev = pario_trace_events(&n);
  static const char *opn[] = {"read", "write", "open", "close", "seek", "sync", "stat", "other"};
  puts_(o, ",\"trace\":{\"columns\":[\"module\",\"op\",\"id\",\"offset\",\"size\",\"start\",\"duration\",\"tid\"],\"events\":[");
  double tick = pario_tick_seconds();
  int first = 1;
  for (int64_t k = 0; k < n; k++) {
    const struct pario_tevent *e = &ev[k];
    if (!e->t0) continue; /* slot claimed but not yet filled by a racing thread */
    putf(o, "%s[\"%s\",\"%s\",\"%016llx\",%lld,%lld,", first ? "" : ",", pario_module_name(e->module),
         opn[e->op], (unsigned long long)e->id, (long long)e->off, (long long)e->size);
    put_dbl(o, pario_ticks_to_epoch((double)e->t0) - pario_proc.start_epoch);
    puts_(o, ",");
    put_dbl(o, (double)(e->t1 - e->t0) * tick);
    putf(o, ",%u]", e->tid);
    first = 0;
  }
  puts_(o, "]}");
}

static void mkdirs(const char *dir) {
  char p[1024];
  snprintf(p, sizeof p, "%s", dir);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') { *s = 0; syscall(SYS_mkdirat, AT_FDCWD, p, 0755); *s = '/'; }
  syscall(SYS_mkdirat, AT_FDCWD, p, 0755);
}

int pario_profile_write(const char *reason, int partial, int from_signal) {
  int touched = 0;
  pario_records_each(any_touched, &touched);
  /* A fork child or a shell that only execs did nothing worth a file. */
  if (!touched && (pario_proc.ppid_fork || !strcmp(reason, "exec"))) return 0;
  struct out o = {0};
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  double end = (double)now.tv_sec + now.tv_nsec * 1e-9;
  putf(&o, "{\"format\":\"%s\",\"version\":%d,\"kind\":\"process\",\"pario_version\":\"%s\",\"process\":{",
       PARIO_PROFILE_FORMAT, PARIO_PROFILE_VERSION, PARIO_VERSION);
  puts_(&o, "\"host\":");
  put_str(&o, pario_proc.host);
  putf(&o, ",\"pid\":%d,\"rank\":%d,\"nprocs\":%d,\"fork_parent\":", (int)pario_proc.pid, pario_proc.rank, pario_proc.nprocs);
  if (pario_proc.ppid_fork) putf(&o, "%d", (int)pario_proc.ppid_fork); else puts_(&o, "null");
  char exe[PATH_MAX];
  ssize_t n = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  puts_(&o, ",\"exe\":");
  put_str(&o, exe);
  puts_(&o, ",\"cmdline\":");
  put_file(&o, "/proc/self/cmdline");
  /* Non-MPI programs started by a launcher (srun, mpirun, torchrun) still have a rank there. */
  static const char *rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "RANK", NULL};
  const char *lr = NULL;
  for (int k = 0; rank_vars[k] && !lr; k++) lr = getenv(rank_vars[k]);
  puts_(&o, ",\"launcher_rank\":");
  if (lr && *lr && strspn(lr, "0123456789") == strlen(lr) && strlen(lr) < 10) puts_(&o, lr); else puts_(&o, "null");
  puts_(&o, ",\"start\":");
  put_dbl(&o, pario_proc.start_epoch);
  puts_(&o, ",\"end\":");
  put_dbl(&o, end);
  puts_(&o, ",\"reason\":");
  put_str(&o, reason);
  putf(&o, ",\"partial\":%s,\"mpi_finalized\":%s", partial ? "true" : "false", pario_proc.mpi_finalized ? "true" : "false");
  if (pario_proc.mpi_aborted) putf(&o, ",\"mpi_abort_code\":%d", pario_proc.mpi_abort_code);
  puts_(&o, "},");
  putf(&o, "\"settings\":{\"mem_bound\":%llu,\"trace\":%s,\"mem_align\":%d,\"exclude\":",
       (unsigned long long)pario_cfg.mem_bound, pario_cfg.trace ? "true" : "false", pario_cfg.mem_align);
  put_str(&o, pario_cfg.exclude);
  puts_(&o, ",\"runtime\":");
  put_str(&o, pario_cfg.runtime);
  putf(&o, ",\"runtime_files\":%s", pario_cfg.runtime_files ? "true" : "false");
  /* which clock timed the calls: the TSC (calibrated) or CLOCK_MONOTONIC (see intercept/clock.h) */
  putf(&o, ",\"clock\":\"%s\"", pario_use_tsc ? "tsc" : "monotonic");
  putf(&o, "},\"limits\":{\"dropped_records\":%lld,\"trace_kept\":%lld,\"trace_dropped\":%lld,\"trace_capacity\":%lld},",
       (long long)atomic_load(&pario_stats.dropped_records), (long long)atomic_load(&pario_stats.trace_kept),
       (long long)atomic_load(&pario_stats.trace_dropped), (long long)pario_stats.trace_cap);
  /* which I/O libraries the process had and whether their calls were seen (issue 29; absent
     from the logs of a pario that did not record the libraries) */
  {
    static char libs[8192];
    pario_lib_state(libs, sizeof libs, from_signal);
    puts_(&o, "\"libraries\":");
    puts_(&o, libs);
    puts_(&o, ",");
  }
  puts_(&o, "\"modules\":{");
  for (int m = 0; m < PARIO_NUM_MODULES; m++) {
    if (m >= PARIO_FIRST_LIB_MODULE) { /* a library's modules only when they hold records */
      struct has h = {m, 0};
      pario_records_each(module_touched, &h);
      pario_records_each_reduced(module_reduced, &h);
      if (!h.yes) continue;
    }
    putf(&o, "%s\"%s\":{", m ? "," : "", pario_module_name(m));
    put_names(&o, m);
    puts_(&o, ",\"records\":[");
    struct walk w = {&o, m, from_signal, 0};
    pario_records_each(emit_live, &w);
    pario_records_each_reduced(emit_reduced, &w);
    puts_(&o, "]}");
  }
  puts_(&o, "}");
  if (pario_cfg.trace) put_trace(&o);
  puts_(&o, "}\n");
  if (o.fail) return -1;

  if (pario_stats.dropped_records || pario_stats.trace_dropped) {
    char msg[400];
    int k = snprintf(msg, sizeof msg,
                     "pario-preload: memory bound %llu B reached in pid %d: %lld files folded into \"<other files>\", "
                     "%lld trace events dropped (counters stay exact; raise PARIO_PROFILE_MEM)\n",
                     (unsigned long long)pario_cfg.mem_bound, (int)pario_proc.pid,
                     (long long)pario_stats.dropped_records, (long long)pario_stats.trace_dropped);
    syscall(SYS_write, 2, msg, (size_t)k);
  }
  char path[1200], tmp[1300];
  mkdirs(pario_cfg.dir);
  if (pario_proc.rank >= 0)
    snprintf(path, sizeof path, "%s/rank%d-%s-%d-%lld.json", pario_cfg.dir, pario_proc.rank, pario_proc.host,
             (int)pario_proc.pid, (long long)(pario_proc.start_epoch * 1e6));
  else
    snprintf(path, sizeof path, "%s/%s-%d-%lld.json", pario_cfg.dir, pario_proc.host, (int)pario_proc.pid,
             (long long)(pario_proc.start_epoch * 1e6));
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = (int)syscall(SYS_openat, AT_FDCWD, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int rc = -1;
  if (fd >= 0) {
    size_t off = 0;
    while (off < o.len) {
      ssize_t w = syscall(SYS_write, fd, o.p + off, o.len - off);
      if (w <= 0) break;
      off += (size_t)w;
    }
    syscall(SYS_fsync, fd);
    syscall(SYS_close, fd);
    if (off == o.len && syscall(SYS_rename, tmp, path) == 0) rc = 0;
    else syscall(SYS_unlink, tmp);
  }
  if (rc != 0) {
    char msg[1400];
    int k = snprintf(msg, sizeof msg, "pario-preload: cannot write the profile log %s\n", path);
    syscall(SYS_write, 2, msg, (size_t)k);
  } else if (pario_cfg.verbose) {
    char msg[1400];
    int k = snprintf(msg, sizeof msg, "pario-preload: wrote %s (%s)\n", path, reason);
    syscall(SYS_write, 2, msg, (size_t)k);
  }
  munmap(o.p, o.cap);
  return rc;
}
