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
#include "engine/timing.h"

enum { LINE = 64 };
#define STATUS_PERIOD_S 1.0 /* in-phase bytes are rewritten at most this often */
static char *status_map;
/* The phase the line describes, kept so that a byte count can be written into it alone. */
static int cur_case, cur_rep;
static const char *cur_op = "-", *cur_state = "-";
static unsigned long long cur_bytes;
static double next_write;
unsigned long pario_status_countdown = 1;
static unsigned long period_calls = 1;

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

static void write_line(void) {
  char line[LINE];
  int n = snprintf(line, sizeof line, "%d %s %d %s %llu", cur_case, cur_op, cur_rep, cur_state, cur_bytes);
  if (n < 0 || n >= LINE) n = LINE - 1;
  memset(line + n, ' ', sizeof line - (size_t)n - 1); /* fixed width: the reader sees one line */
  line[sizeof line - 1] = '\n';
  memcpy(status_map, line, sizeof line);
}

void pario_status(int case_index, const char *op, int rep, const char *state) {
  if (!status_map) return;
  /* a new phase (metadata phases start at "xfer"): its count starts at 0 */
  if (!strcmp(state, "open") || case_index != cur_case || rep != cur_rep || strcmp(op, cur_op)) {
    cur_bytes = 0;
    next_write = pario_t() + STATUS_PERIOD_S;
    pario_status_countdown = period_calls;
  }
  cur_case = case_index, cur_op = op, cur_rep = rep, cur_state = state;
  write_line();
}

void pario_status_calls(unsigned long long call_bytes) {
  /* the clock is read once per MiB moved, at least once per call: a 4 KiB loop reads it every
     256 calls, a 16 MiB one every call (the call itself takes milliseconds) */
  unsigned long long per = call_bytes ? (1ull << 20) / call_bytes : 1;
  period_calls = per ? (unsigned long)per : 1;
  pario_status_countdown = period_calls;
}

void pario_status_moved(unsigned long long bytes) {
  pario_status_countdown = period_calls;
  if (!status_map) return;
  cur_bytes = bytes;
  double now = pario_t();
  if (now < next_write) return;
  next_write = now + STATUS_PERIOD_S;
  write_line();
}

void pario_status_total(unsigned long long bytes) { cur_bytes = bytes; }
