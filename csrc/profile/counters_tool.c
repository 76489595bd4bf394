/* pario-counters: the profiler's counter table as JSON on stdout, from include/pario/counters.h
 * itself, so that the front end (the advisor quotes the docs) needs no copy of it and the logs
 * need not carry the docs. Each module's "counters" (integers) and "fcounters" (doubles) are in
 * the order of a log record's "c" and "fc" arrays.
 *
 *   {"format": "pario-profile", "version": 1, "kinds": {...}, "ops": {...},
 *    "modules": {"posix": {"counters": [{"name", "kind", "op", "doc"}, ...], "fcounters": [...]}}} */
#include <stdio.h>
#include <string.h>

#include "pario/counters.h"

static void str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') putchar('\\');
    putchar(*s);
  }
  putchar('"');
}

static int first;
static void counter(const char *name, const char *kind, const char *op, const char *doc) {
  printf("%s\n      {\"name\": ", first ? "" : ",");
  first = 0;
  str(name);
  printf(", \"kind\": ");
  str(kind);
  printf(", \"op\": ");
  str(op);
  printf(", \"doc\": ");
  str(doc);
  printf("}");
}

#define ONE(name, kind, op, doc) counter(#name, #kind, #op, doc);
#define NONE(name, kind, op, doc)

int main(int argc, char **argv) {
  if (argc > 1) {
    fprintf(stderr, "usage: pario-counters   (prints the profiler's counters, with their meaning, as JSON)\n");
    return strcmp(argv[1], "--help") && strcmp(argv[1], "-h") ? 2 : 0;
  }
  printf("{\"format\": \"%s\", \"version\": %d,\n", PARIO_PROFILE_FORMAT, PARIO_PROFILE_VERSION);
  printf(
      " \"kinds\": {\"count\": \"a number of calls or things\", \"bytes\": \"bytes\", "
      "\"offset\": \"a byte offset in the file\", \"size\": \"a size in bytes\", \"seconds\": \"seconds\", "
      "\"timestamp\": \"seconds since the epoch\", \"rank\": \"an MPI rank\", \"variance\": \"a variance across "
      "ranks\"},\n");
  printf(
      " \"ops\": {\"sum\": \"added when records of one file are merged\", \"max\": \"the largest is kept\", "
      "\"min\": \"the smallest non-zero is kept\", \"rank\": \"computed by the merge from the ranks' figures\"},\n");
  printf(" \"modules\": {");
  int m = 0;
#define MODULE(ID, lname, LIST)                                           \
  printf("%s\n  \"%s\": {\n    \"counters\": [", m++ ? "," : "", #lname); \
  first = 1;                                                              \
  LIST(ONE, NONE)                                                         \
  printf("],\n    \"fcounters\": [");                                     \
  first = 1;                                                              \
  LIST(NONE, ONE)                                                         \
  printf("]}");
  PARIO_MODULES(MODULE)
#undef MODULE
  printf("}}\n");
  return 0;
}
