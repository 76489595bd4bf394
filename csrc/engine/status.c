/* Progress lines (stdout, rank 0) and per-rank status files for the front end's watchdog.
 * A status update is a store into a shared mapping of the rank's file, not a system call, so
 * that updates inside a timed phase (open, xfer, sync, close) cost nanoseconds. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/json_write.h"
#include "engine/status.h"

enum { LINE = 64 };
static char *status_map;

void pario_progress(const char *json) {
  printf("@pario %s\n", json);
  fflush(stdout);
}

void pario_progress_phase(int ci, const char *name, const char *op, int rep, int step, int steps, double bw_mib,
                          double iops, unsigned long long errors) {
  pario_jw j;
  pario_jw_init(&j);
  pario_jw_obj(&j, NULL);
  pario_jw_str(&j, "event", "phase");
  pario_jw_int(&j, "case", ci);
  pario_jw_str(&j, "name", name);
  pario_jw_str(&j, "op", op);
  pario_jw_int(&j, "rep", rep);
  pario_jw_int(&j, "step", step);
  pario_jw_int(&j, "steps", steps);
  pario_jw_dbl(&j, "bw_mib", bw_mib);
  pario_jw_dbl(&j, "iops", iops);
  pario_jw_uint(&j, "errors", errors);
  pario_jw_obj_end(&j);
  pario_progress(j.buf);
  pario_jw_free(&j);
}

void pario_status_open(const char *status_dir, int rank) {
  if (!status_dir || !status_dir[0]) return;
  char path[4200];
  snprintf(path, sizeof path, "%s/rank.%d", status_dir, rank);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return; /* the watchdog then knows less; the run is not affected */
  if (ftruncate(fd, LINE) == 0) {
    void *m = mmap(NULL, LINE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) status_map = m;
  }
  close(fd);
  if (status_map) memset(status_map, ' ', LINE);
}

void pario_status(int case_index, const char *op, int rep, const char *state) {
  if (!status_map) return;
  char line[LINE];
  int n = snprintf(line, sizeof line, "%d %s %d %s", case_index, op, rep, state);
  memset(line + n, ' ', sizeof line - (size_t)n - 1); /* fixed width: the reader sees one line */
  line[sizeof line - 1] = '\n';
  memcpy(status_map, line, sizeof line);
}
