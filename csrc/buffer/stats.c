/* Per-file statistics and the per-process stats file (PARIO_BUFFER_STATS): what `pario buffer
 * --stats` prints and `pario profile --buffer` shows as the file system's view. Written with raw
 * system calls into a buffer mapped with the real mmap, so it runs from a signal handler; never
 * printed into the program's stderr. Format: schemas/buffer-stats.schema.json. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buffer/buffer.h"

const char *const pario_buf_why_name[WHY_N] = {"full", "switch", "read", "seek", "stat", "sync", "close", "truncate",
                                         "map", "lock", "spawn", "fork", "stop", "stdio", "memory"};

#define MAX_STATS 4096 /* files per process; more are folded into "<other files>" */
#define NAMES (1 << 20)
static struct pario_buf_stat *stats; /* [MAX_STATS + 1]: the last is "<other files>" */
static int nstats;
static char *names;
static size_t names_used;
static pario_buf_lock_t stats_lock;

static int stats_init(void) {
  if (stats) return 0;
  void *a = PARIO_REAL(mmap)(NULL, sizeof(struct pario_buf_stat) * (MAX_STATS + 1) + NAMES, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (a == MAP_FAILED) return -1;
  stats = a;
  names = (char *)a + sizeof(struct pario_buf_stat) * (MAX_STATS + 1);
  stats[MAX_STATS].path = "<other files>";
  return 0;
}

struct pario_buf_stat *pario_buf_stat_for(const char *path, int stdio, size_t size) {
  if (!pario_buf_cfg.stats_dir[0] || !path) return NULL;
  pario_buf_lock(&stats_lock);
  struct pario_buf_stat *s = NULL;
  if (stats_init() == 0) {
    for (int k = nstats - 1; k >= 0 && !s; k--)
      if (stats[k].stdio == stdio && !strcmp(stats[k].path, path)) s = &stats[k];
    size_t n = strlen(path) + 1;
    if (!s && nstats < MAX_STATS && names_used + n <= NAMES) {
      s = &stats[nstats++];
      memcpy(names + names_used, path, n);
      s->path = names + names_used;
      names_used += n;
      s->stdio = stdio;
    }
    if (!s) s = &stats[MAX_STATS];
    if ((int64_t)size > s->size) s->size = (int64_t)size;
  }
  pario_buf_unlock(&stats_lock);
  return s;
}

void pario_buf_stats_reset(void) {
  for (int k = 0; stats && k <= MAX_STATS; k++) {
    const char *p = stats[k].path;
    int stdio = stats[k].stdio;
    int64_t size = stats[k].size;
    memset(&stats[k], 0, sizeof stats[k]);
    stats[k].path = p, stats[k].stdio = stdio, stats[k].size = size;
  }
}

/* ---- the file ---- */
struct out {
  char *p;
  size_t len, cap;
};
static void put(struct out *o, const char *s, size_t n) {
  if (o->len + n > o->cap) n = o->cap > o->len ? o->cap - o->len : 0;
  memcpy(o->p + o->len, s, n);
  o->len += n;
}
static void putf(struct out *o, const char *fmt, ...) {
  char tmp[256];
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
    if (c == '"' || c == '\\') put(o, "\\", 1), put(o, (const char *)&c, 1);
    else if (c < 0x20) putf(o, "\\u%04x", c);
    else put(o, (const char *)&c, 1);
  }
  put(o, "\"", 1);
}

static void put_cmdline(struct out *o) {
  char buf[4096];
  int fd = (int)syscall(SYS_open, "/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? syscall(SYS_read, fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0) syscall(SYS_close, fd);
  put(o, "[", 1);
  for (ssize_t k = 0, first = 1; n > 0 && k < n; first = 0) {
    buf[n] = 0;
    if (!first) put(o, ",", 1);
    put_str(o, buf + k);
    k += (ssize_t)strlen(buf + k) + 1;
  }
  put(o, "]", 1);
}

static void put_file(struct out *o, const struct pario_buf_stat *s, double tick) {
  put(o, "{\"path\":", 8);
  put_str(o, s->path);
  putf(o, ",\"stdio\":%s,\"size\":%lld,\"opens\":%lld,\"calls\":%lld,\"bytes\":%lld,\"direct\":%lld,",
       s->stdio ? "true" : "false", (long long)s->size, (long long)s->opens, (long long)s->calls,
       (long long)s->bytes, (long long)s->direct);
  putf(o, "\"flushes\":%lld,\"sys_writes\":%lld,\"sys_bytes\":%lld,\"errors\":%lld,", (long long)s->flushes,
       (long long)s->sys_writes, (long long)s->sys_bytes, (long long)s->errors);
  putf(o, "\"program_time\":%.9f,\"write_time\":%.9f,\"flush_reasons\":{", (double)s->prog_ticks * tick,
       (double)s->sys_ticks * tick);
  for (int w = 0, first = 1; w < WHY_N; w++) {
    if (!s->why[w]) continue;
    putf(o, "%s\"%s\":%lld", first ? "" : ",", pario_buf_why_name[w], (long long)s->why[w]);
    first = 0;
  }
  put(o, "}}", 2);
}

int pario_buf_stats_write(const char *reason, int partial) {
  if (!pario_buf_cfg.stats_dir[0] || stats_init() != 0) return -1;
  static char *mem;
  static size_t cap;
  size_t need = (size_t)(nstats + 1) * 1024 + names_used + (1 << 16);
  if (need > cap) {
    if (mem) munmap(mem, cap);
    mem = PARIO_REAL(mmap)(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cap = mem == MAP_FAILED ? 0 : need;
    if (!cap) return (mem = NULL), -1;
  }
  pario_calibrate();
  double tick = pario_tick_seconds();
  struct out o = {mem, 0, cap};
  putf(&o, "{\"format\":\"pario-buffer-stats\",\"version\":1,\"process\":{\"host\":");
  put_str(&o, pario_proc.host);
  putf(&o, ",\"pid\":%d,\"rank\":%d,\"nprocs\":%d,\"fork_parent\":%d,\"start\":%.6f,\"end\":%.6f,",
       (int)pario_proc.pid, pario_proc.rank, pario_proc.nprocs, (int)pario_proc.ppid_fork, pario_proc.start_epoch,
       pario_epoch_now());
  putf(&o, "\"reason\":\"%s\",\"partial\":%s,\"cmdline\":", reason, partial ? "true" : "false");
  put_cmdline(&o);
  putf(&o, "},\"settings\":{\"size\":%lld,\"piece\":%lld,\"total\":%lld,\"stdio\":%s,\"files\":[",
       (long long)pario_buf_cfg.size, (long long)pario_buf_cfg.piece, (long long)pario_buf_cfg.total,
       pario_buf_cfg.stdio ? "true" : "false");
  for (int k = 0; k < pario_buf_cfg.npat; k++) {
    if (k) put(&o, ",", 1);
    putf(&o, "{\"size\":%lld,\"pattern\":", (long long)pario_buf_cfg.pat[k].size);
    put_str(&o, pario_buf_cfg.pat[k].glob);
    put(&o, "}", 1);
  }
  put(&o, "]},\"files\":[", 12);
  int first = 1;
  for (int k = 0; k <= MAX_STATS; k++) {
    if (k >= nstats && k < MAX_STATS) continue;
    const struct pario_buf_stat *s = &stats[k];
    if (!s->path || (!s->calls && !s->opens && !s->flushes)) continue;
    if (!first) put(&o, ",", 1);
    put_file(&o, s, tick);
    first = 0;
  }
  put(&o, "]}\n", 3);
  if (o.len >= o.cap) return -1;

  char path[1200], tmp[1300];
  long long ns = (long long)(pario_proc.start_epoch * 1e9);
  snprintf(path, sizeof path, "%s/%s.%d.%lld.json", pario_buf_cfg.stats_dir, pario_proc.host, (int)pario_proc.pid, ns);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = (int)syscall(SYS_open, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < o.len) {
    ssize_t k = syscall(SYS_write, fd, o.p + done, o.len - done);
    if (k <= 0) break;
    done += (size_t)k;
  }
  syscall(SYS_close, fd);
  if (done < o.len) return (void)syscall(SYS_unlink, tmp), -1;
  return syscall(SYS_rename, tmp, path) == 0 ? 0 : -1;
}
