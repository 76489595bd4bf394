/* The per-rank status line (csrc/engine/status.c, schemas/README.md section 3): the bytes moved so
 * far in a phase, the clock read once per MiB of calls and the line rewritten at most once a
 * second. pario_t is this test's clock, so that both bounds are checked without waiting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "engine/status.h"

static double fake_now;
static int clock_reads;
double pario_t(void) {
  clock_reads++;
  return fake_now;
}

static char dir[] = "/tmp/pario-status-XXXXXX";

static void line(char *out, size_t n) {
  char path[64];
  snprintf(path, sizeof path, "%s/rank.3", dir);
  FILE *f = fopen(path, "r");
  out[0] = 0;
  if (f) {
    if (!fgets(out, (int)n, f)) out[0] = 0;
    fclose(f);
  }
  size_t len = strlen(out);
  while (len && (out[len - 1] == ' ' || out[len - 1] == '\n')) out[--len] = 0;
}

int main(void) {
  char got[128], path[64];
  if (!mkdtemp(dir)) return 2;
  pario_status_open(dir, 3);
  pario_status_calls(4096); /* 4 KiB calls: the clock once per 256 calls */
  pario_status(0, "write", 1, "open");
  line(got, sizeof got);
  CHECK(!strcmp(got, "0 write 1 open 0"), "got '%s'", got);
  pario_status(0, "write", 1, "xfer");
  int before = clock_reads;
  for (unsigned long long i = 1; i <= 512; i++) pario_status_xfer(i * 4096);
  CHECK(clock_reads - before == 2, "%d clock reads for 512 calls of 4 KiB", clock_reads - before);
  line(got, sizeof got);
  CHECK(!strcmp(got, "0 write 1 xfer 0"), "rewritten before a second had passed: '%s'", got);
  fake_now = 1.5;
  for (unsigned long long i = 513; i <= 768; i++) pario_status_xfer(i * 4096);
  line(got, sizeof got);
  CHECK(!strcmp(got, "0 write 1 xfer 3145728"), "after a second: '%s'", got);
  fake_now = 1.6; /* within the second: the count is kept, the line not rewritten */
  for (unsigned long long i = 769; i <= 1024; i++) pario_status_xfer(i * 4096);
  line(got, sizeof got);
  CHECK(!strcmp(got, "0 write 1 xfer 3145728"), "rewritten twice in a second: '%s'", got);
  pario_status_total(4194304);
  pario_status(0, "write", 1, "done");
  line(got, sizeof got);
  CHECK(!strcmp(got, "0 write 1 done 4194304"), "the phase's count at its end: '%s'", got);
  pario_status(1, "create", 0, "xfer"); /* a metadata phase starts at xfer: its count is 0 */
  line(got, sizeof got);
  CHECK(!strcmp(got, "1 create 0 xfer 0"), "a new phase: '%s'", got);
  pario_status_calls(16 << 20); /* 16 MiB calls: the clock at every call */
  before = clock_reads;
  for (unsigned long long i = 1; i <= 3; i++) pario_status_xfer(i << 24);
  CHECK(clock_reads - before == 3, "%d clock reads for 3 calls of 16 MiB", clock_reads - before);
  snprintf(path, sizeof path, "%s/rank.3", dir);
  unlink(path);
  rmdir(dir);
  return CHECK_DONE();
}
