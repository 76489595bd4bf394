#include "pario/errors.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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

const char *pario_err_msg(void) { return msg[0] ? msg : ""; }
void pario_err_clear(void) { msg[0] = '\0'; }
