/* The option-table check (csrc/backends/options.c): every type accepts what it says and refuses
 * the rest with one line naming the case, the backend and the setting. */
#include <string.h>

#include "check.h"
#include "pario/errors.h"
#include "pario/options.h"

static const char *const words[] = {"none", "block", NULL};
static const char *const modes[] = {"blocking", "iput", "bput", NULL};
static const pario_option opts[] = {
    {.name = "align", .type = PARIO_OPT_SIZE, PARIO_OPT_MIN(1), PARIO_OPT_MAX(2147483647)},
    {.name = "batch", .type = PARIO_OPT_INT, PARIO_OPT_MIN(0)},
    {.name = "growth", .type = PARIO_OPT_FLOAT, PARIO_OPT_MIN(1)},
    {.name = "mode", .type = PARIO_OPT_CHOICE, .choices = modes},
    {.name = "on", .type = PARIO_OPT_BOOL},
    {.name = "path", .type = PARIO_OPT_STRING},
    {.name = "chunk", .type = PARIO_OPT_DIMS, .choices = words},
    {.name = "Lib", .type = PARIO_OPT_INT, .flags = PARIO_OPT_LIBRARY_CHECKS},
    {0}};

/* 0 when accepted; else PARIO_E_SPEC and the message must contain want. */
static int one(int ndims, const char *key, const char *val, const char *want) {
  pario_case c;
  memset(&c, 0, sizeof c);
  strcpy(c.name, "t");
  c.pat.kind = ndims ? PARIO_SUBARRAY : PARIO_SEGMENTED;
  c.pat.ndims = ndims;
  c.nlib = 1;
  strcpy(c.lib_key[0], key);
  strcpy(c.lib_val[0], val);
  pario_err_clear();
  int rc = pario_options_check(&c, "be", opts);
  if (want) {
    CHECK(rc == PARIO_E_SPEC, "%s=%s: rc %d, expected a spec error", key, val, rc);
    CHECK(strstr(pario_err_msg(), want) != NULL, "%s=%s: message \"%s\" lacks \"%s\"", key, val, pario_err_msg(), want);
    CHECK(strstr(pario_err_msg(), "case t: ") == pario_err_msg(), "message names the case: %s", pario_err_msg());
  } else {
    CHECK(rc == 0, "%s=%s refused: %s", key, val, pario_err_msg());
  }
  return rc;
}

int main(void) {
  one(0, "align", "4096", NULL);
  one(0, "ALIGN", "1m", NULL); /* names without regard to case */
  one(0, "align", "0", "be align must be at least 1");
  one(0, "align", "4g", "be align must be at most 2147483647");
  one(0, "align", "-1", "be align must be a size in bytes");
  one(0, "align", "12x", "be align must be a size in bytes");
  one(0, "align", "99999999999999999999", "be align must be a size in bytes");
  one(0, "batch", "0", NULL);
  one(0, "batch", "4k", "be batch must be an integer");
  one(0, "batch", "-2", "be batch must be at least 0");
  one(0, "growth", "1.05", NULL);
  one(0, "growth", "0.5", "be growth must be at least 1");
  one(0, "growth", "fast", "be growth must be a number");
  one(0, "mode", "iput", NULL);
  one(0, "mode", "async", "be mode must be blocking, iput or bput");
  one(0, "on", "true", NULL);
  one(0, "on", "1", "be on must be true or false");
  one(0, "path", "/any/thing", NULL);
  one(0, "chunk", "block", NULL);
  one(0, "chunk", "64", NULL);
  one(0, "chunk", "1,2", "be chunk must be none, block or 1 comma-separated element counts");
  one(3, "chunk", "1,2,3", NULL);
  one(3, "chunk", "1,0,3", "be chunk must be none, block or 3 comma-separated element counts");
  one(0, "lib", "128Mb", NULL); /* the library checks these values */
  one(0, "nope", "1", "backend be has no lib setting \"nope\" (known: align, batch,");

  uint64_t v = 0, d[3];
  CHECK(!pario_parse_size("3k", &v) && v == 3072, "3k = %llu", (unsigned long long)v);
  CHECK(pario_parse_size("20000000000g", &v) == -1, "overflow refused");
  CHECK(!pario_parse_dims("4,5,6", 3, d) && d[0] == 4 && d[2] == 6, "dims 4,5,6");
  CHECK(pario_parse_dims("4,5", 3, d) == -1 && pario_parse_dims("4,5,6,7", 3, d) == -1, "dims count");
  CHECK(pario_option_find(opts, "MODE") == &opts[3] && !pario_option_find(opts, "mod"), "find");
  return CHECK_DONE();
}
