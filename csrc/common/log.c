#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int my_rank = -1;
static int threshold = -1;

void pario_log_set_rank(int rank) { my_rank = rank; }

static int level_from_env(void) {
  const char *s = getenv("PARIO_LOG");
  if (!s) return PARIO_LOG_WARN;
  if (!strcmp(s, "error")) return PARIO_LOG_ERROR;
  if (!strcmp(s, "info")) return PARIO_LOG_INFO;
  if (!strcmp(s, "debug")) return PARIO_LOG_DEBUG;
  return PARIO_LOG_WARN;
}

void pario_log(int level, const char *fmt, ...) {
  static const char *names[] = {"error", "warning", "info", "debug"};
  if (threshold < 0) threshold = level_from_env();
  if (level > threshold) return;
  char line[2048];
  int n = my_rank >= 0 ? snprintf(line, sizeof line, "pario-engine[%d]: %s: ", my_rank, names[level])
                       : snprintf(line, sizeof line, "pario-engine: %s: ", names[level]);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s\n", line);
}
