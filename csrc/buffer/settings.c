/* What the buffer was told (the PARIO_BUFFER_* environment, set by `pario buffer`; README.md
 * here has the table) and which files it buffers. */
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "buffer/buffer.h"

struct pario_buf_settings pario_buf_cfg;

/* "64m", "8M", "512k", "1g", "4096" (bytes); -1 when it is not a size. */
static long long parse_size(const char *s, const char **end) {
  char *e;
  double x = strtod(s, &e);
  if (e == s || x < 0) return -1;
  double mul = 1;
  if (*e == 'k' || *e == 'K') mul = 1024, e++;
  else if (*e == 'm' || *e == 'M') mul = 1024.0 * 1024, e++;
  else if (*e == 'g' || *e == 'G') mul = 1024.0 * 1024 * 1024, e++;
  if (*e == 'i' || *e == 'b' || *e == 'B') e++;
  if (end) *end = e;
  return (long long)(x * mul);
}

static void say(const char *what) {
  char msg[512];
  int n = snprintf(msg, sizeof msg, "pario-preload: %s; the buffer is off\n", what);
  syscall(SYS_write, 2, msg, (size_t)n);
}

/* PARIO_BUFFER_FILES: comma-separated PATTERN[:size=N] (IOBUF_PARAMS style). */
static int parse_patterns(const char *v) {
  while (*v) {
    const char *comma = strchr(v, ',');
    size_t n = comma ? (size_t)(comma - v) : strlen(v);
    if (n && pario_buf_cfg.npat < BUF_MAX_PATTERNS) {
      struct pario_buf_pattern *p = &pario_buf_cfg.pat[pario_buf_cfg.npat];
      char item[600];
      if (n >= sizeof item) return -1;
      memcpy(item, v, n);
      item[n] = 0;
      p->size = pario_buf_cfg.size;
      char *opt = strstr(item, ":size=");
      if (opt) {
        const char *end;
        long long sz = parse_size(opt + 6, &end);
        if (sz < 0 || *end) return -1;
        p->size = (size_t)sz;
        *opt = 0;
      }
      if (strlen(item) >= sizeof p->glob) return -1;
      strcpy(p->glob, item);
      pario_buf_cfg.npat++;
    }
    v += n + (comma ? 1 : 0);
  }
  return 0;
}

int pario_buf_settings_read(void) {
  const char *on = getenv("PARIO_BUFFER");
  if (!on || !*on || !strcmp(on, "0")) return -1;
  pario_buf_cfg.size = 64u << 20;
  const char *v = getenv("PARIO_BUFFER_SIZE"), *end;
  if (v && *v) {
    long long sz = parse_size(v, &end);
    if (sz < 0 || *end) return say("PARIO_BUFFER_SIZE is not a size (e.g. 64m)"), -1;
    pario_buf_cfg.size = (size_t)sz;
  }
  pario_buf_cfg.total = pario_buf_cfg.size > (1ull << 30) ? pario_buf_cfg.size : 1ull << 30;
  v = getenv("PARIO_BUFFER_TOTAL");
  if (v && *v) {
    long long sz = parse_size(v, &end);
    if (sz < 0 || *end) return say("PARIO_BUFFER_TOTAL is not a size (e.g. 1g)"), -1;
    pario_buf_cfg.total = (size_t)sz;
  }
  /* Written out in 1 MiB pieces as they fill: the copy out of a piece that was just written is
   * cache-hot, and on a virtual machine whose host takes free memory back, a buffer and a page
   * cache of large folios pay a fault in the host per first touch (benchmarks/buffer/RESULTS.md).
   * The size still bounds what a file's buffer holds. */
  pario_buf_cfg.piece = 1u << 20;
  v = getenv("PARIO_BUFFER_PIECE");
  if (v && *v) {
    long long sz = parse_size(v, &end);
    if (sz < 0 || *end) return say("PARIO_BUFFER_PIECE is not a size (e.g. 1m, or 0 for the whole buffer)"), -1;
    pario_buf_cfg.piece = (size_t)sz;
  }
  v = getenv("PARIO_BUFFER_FILES");
  if (v && *v && parse_patterns(v) != 0) return say("PARIO_BUFFER_FILES is not PATTERN[:size=N],..."), -1;
  v = getenv("PARIO_BUFFER_STATS");
  if (v && *v) snprintf(pario_buf_cfg.stats_dir, sizeof pario_buf_cfg.stats_dir, "%s", v);
  v = getenv("PARIO_BUFFER_STDIO");
  pario_buf_cfg.stdio = !(v && !strcmp(v, "0"));
  return 0;
}

/* Never the kernel's own files (/proc, /sys regular files take writes that are commands), nor
 * /dev but its tmpfs /dev/shm. */
static int system_path(const char *p) {
  return !strncmp(p, "/proc/", 6) || !strncmp(p, "/sys/", 5) || (!strncmp(p, "/dev/", 5) && strncmp(p, "/dev/shm/", 9));
}

size_t pario_buf_size_for(const char *abspath) {
  if (system_path(abspath)) return 0;
  if (!pario_buf_cfg.npat) return pario_buf_cfg.size;
  for (int k = 0; k < pario_buf_cfg.npat; k++)
    if (fnmatch(pario_buf_cfg.pat[k].glob, abspath, 0) == 0) return pario_buf_cfg.pat[k].size;
  return 0;
}

/* The absolute path of (dirfd, path), with "." and ".." segments removed as text (patterns are
 * matched against it, and --stats shows it). */
void pario_buf_abspath(int dirfd, const char *path, char *out, size_t cap) {
  char raw[PATH_MAX * 2];
  if (path[0] == '/') {
    snprintf(raw, sizeof raw, "%s", path);
  } else {
    char dir[PATH_MAX] = "";
    if (dirfd == AT_FDCWD) {
      if (syscall(SYS_getcwd, dir, sizeof dir) < 0) dir[0] = 0;
    } else {
      char link[64];
      snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = syscall(SYS_readlink, link, dir, sizeof dir - 1);
      dir[n > 0 ? n : 0] = 0;
    }
    snprintf(raw, sizeof raw, "%s/%s", dir, path);
  }
  size_t o = 0;
  const char *s = raw;
  while (*s && o + 2 < cap) {
    while (*s == '/') s++;
    const char *seg = s;
    while (*s && *s != '/') s++;
    size_t n = (size_t)(s - seg);
    if (!n || (n == 1 && seg[0] == '.')) continue;
    if (n == 2 && seg[0] == '.' && seg[1] == '.') {
      while (o > 0 && out[o - 1] != '/') o--;
      if (o > 0) o--;
      continue;
    }
    if (o + n + 2 >= cap) break;
    out[o++] = '/';
    memcpy(out + o, seg, n);
    o += n;
  }
  if (!o) out[o++] = '/';
  out[o] = 0;
}
