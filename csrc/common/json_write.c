#include "common/json_write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pario/errors.h"

void pario_jw_init(pario_jw *w) { memset(w, 0, sizeof *w); }

void pario_jw_free(pario_jw *w) {
  free(w->buf);
  memset(w, 0, sizeof *w);
}

static void put(pario_jw *w, const char *s, size_t n) {
  if (w->failed) return;
  if (w->len + n + 1 > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (w->len + n + 1 > cap) cap *= 2;
    char *b = realloc(w->buf, cap);
    if (!b) { w->failed = 1; return; }
    w->buf = b;
    w->cap = cap;
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = '\0';
}

static void puts_(pario_jw *w, const char *s) { put(w, s, strlen(s)); }

static void quoted(pario_jw *w, const char *s) {
  put(w, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    char esc[8];
    switch (*p) {
      case '"': puts_(w, "\\\""); break;
      case '\\': puts_(w, "\\\\"); break;
      case '\n': puts_(w, "\\n"); break;
      case '\r': puts_(w, "\\r"); break;
      case '\t': puts_(w, "\\t"); break;
      default:
        if (*p < 0x20) {
          snprintf(esc, sizeof esc, "\\u%04x", *p);
          puts_(w, esc);
        } else {
          put(w, (const char *)p, 1);
        }
    }
  }
  put(w, "\"", 1);
}

/* Comma and key before a value at the current depth. */
static void pre(pario_jw *w, const char *key) {
  if (w->need_comma[w->depth]) put(w, ",", 1);
  w->need_comma[w->depth] = 1;
  if (key) {
    quoted(w, key);
    put(w, ":", 1);
  }
}

static void open_(pario_jw *w, const char *key, const char *br) {
  pre(w, key);
  puts_(w, br);
  if (w->depth < 63) w->depth++;
  w->need_comma[w->depth] = 0;
}

static void close_(pario_jw *w, const char *br) {
  if (w->depth > 0) w->depth--;
  puts_(w, br);
}

void pario_jw_obj(pario_jw *w, const char *key) { open_(w, key, "{"); }
void pario_jw_obj_end(pario_jw *w) { close_(w, "}"); }
void pario_jw_arr(pario_jw *w, const char *key) { open_(w, key, "["); }
void pario_jw_arr_end(pario_jw *w) { close_(w, "]"); }

void pario_jw_str(pario_jw *w, const char *key, const char *val) {
  pre(w, key);
  if (val) quoted(w, val); else puts_(w, "null");
}

void pario_jw_int(pario_jw *w, const char *key, int64_t val) {
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, val);
  pre(w, key);
  puts_(w, b);
}

void pario_jw_uint(pario_jw *w, const char *key, uint64_t val) {
  char b[32];
  snprintf(b, sizeof b, "%" PRIu64, val);
  pre(w, key);
  puts_(w, b);
}

void pario_jw_dbl(pario_jw *w, const char *key, double val) {
  char b[40];
  pre(w, key);
  if (!isfinite(val)) { puts_(w, "null"); return; }
  snprintf(b, sizeof b, "%.9g", val);
  puts_(w, b);
}

void pario_jw_bool(pario_jw *w, const char *key, int val) {
  pre(w, key);
  puts_(w, val ? "true" : "false");
}

void pario_jw_null(pario_jw *w, const char *key) {
  pre(w, key);
  puts_(w, "null");
}

void pario_jw_raw(pario_jw *w, const char *key, const char *json) {
  pre(w, key);
  puts_(w, json);
}

int pario_jw_save(const pario_jw *w, const char *path) {
  if (w->failed) return pario_err(PARIO_E_NOMEM, "out of memory while building %s", path);
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return pario_err(pario_err_from_errno(errno), "cannot write %s: %s", tmp, strerror(errno));
  size_t done = 0;
  while (done < w->len) {
    ssize_t n = write(fd, w->buf + done, w->len - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      close(fd);
      unlink(tmp);
      return pario_err(pario_err_from_errno(e), "cannot write %s: %s", tmp, strerror(e));
    }
    done += (size_t)n;
  }
  if (write(fd, "\n", 1) != 1 || fsync(fd) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return pario_err(pario_err_from_errno(e), "cannot write %s: %s", tmp, strerror(e));
  }
  close(fd);
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return pario_err(pario_err_from_errno(e), "cannot rename %s to %s: %s", tmp, path, strerror(e));
  }
  return 0;
}
