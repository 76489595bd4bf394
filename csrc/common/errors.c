#include "pario/errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static _Thread_local char msg[1024];

const char *pario_err_tag(int code) {
  switch (code) {
#define PARIO_X(name, val, tag, text) case val: return tag;
    PARIO_ERRORS(PARIO_X)
#undef PARIO_X
  }
  return "unknown";
}

const char *pario_err_text(int code) {
  switch (code) {
#define PARIO_X(name, val, tag, text) case val: return text;
    PARIO_ERRORS(PARIO_X)
#undef PARIO_X
  }
  return "unknown error";
}

int pario_err(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return code;
}

int pario_err_from_errno(int e) {
  switch (e) {
    case ENOSPC: case EDQUOT: return PARIO_E_NOSPACE;
    case ENOMEM: return PARIO_E_NOMEM;
    case EACCES: case EPERM: case EROFS: return PARIO_E_PERM;
    case ENOENT: case ENOTDIR: return PARIO_E_NOENT;
    case EINVAL: return PARIO_E_UNSUPPORTED;
    default: return PARIO_E_IO;
  }
}

static void human(unsigned long long b, char *out, size_t len) {
  const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  double v = (double)b;
  while (v >= 1024 && u < 4) v /= 1024, u++;
  snprintf(out, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

int pario_err_space(int code, const char *path, int saved_errno) {
  char dir[4096], room[sizeof dir + 64] = "";
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *(slash == dir ? slash + 1 : slash) = 0;
  else snprintf(dir, sizeof dir, ".");
  struct statvfs st;
  if (!statvfs(dir, &st)) {
    unsigned long long blocks = geteuid() == 0 ? st.f_bfree : st.f_bavail, free = blocks * st.f_frsize;
    char h[32];
    human(free, h, sizeof h);
    if (st.f_files && !st.f_favail) snprintf(room, sizeof room, "no free inode in %s", dir);
    else if (free < (1ULL << 20) || saved_errno == ENOSPC || saved_errno == EDQUOT)
      snprintf(room, sizeof room, "%s free in %s", h, dir);
  }
  if (!room[0] && saved_errno != ENOSPC && saved_errno != EDQUOT) return code;
  if (!room[0]) snprintf(room, sizeof room, "%s", saved_errno == EDQUOT ? "quota exceeded" : "the library said so");
  char old[sizeof msg], *at = strstr(strcpy(old, msg), path);
  const char *words = at ? at + strlen(path) : "";
  if (!strncmp(words, ": ", 2)) words += 2;
  int head = at ? (int)(at - old) + (int)strlen(path) : (int)strlen(old);
  snprintf(msg, sizeof msg, "%.*s: %s (%s%s%s)", head, old, strerror(saved_errno == EDQUOT ? EDQUOT : ENOSPC), room,
           words[0] ? "; " : "", words);
  return PARIO_E_NOSPACE;
}

const char *pario_err_msg(void) { return msg[0] ? msg : ""; }
void pario_err_clear(void) { msg[0] = '\0'; }
