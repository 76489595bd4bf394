/* pario-engine --settings: open each case's file as its first write would, untimed, and close it,
 * so that an MPI told to print the settings it took at open (ROMIO_PRINT_HINTS, Open MPI's
 * io_ompio_verbose_info_parsing) prints them once per case, in a launch of their own. The timed
 * run then runs without that output: printing at every open cost about 20% of short MPI-IO read
 * phases on 4 oversubscribed ranks (5.1-5.3 against 6.2-6.4 GiB/s; benchmarks/RESULTS.md). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "backends/dispatch.h"
#include "common/log.h"
#include "engine/casectx.h"
#include "engine/reduce.h"
#include "engine/settings_open.h"
#include "engine/status.h"
#include "pario/errors.h"

static int open_close(const pario_ctx *c) {
  if (!pario_ctx_io_rank(c)) return 0;
  pario_file *fh = NULL;
  int rc = pario_ctx_open(c, c->cs->reuse ? PARIO_READ : PARIO_WRITE, &fh); /* an earlier run's files: read only */
  if (!rc) rc = pario_file_close(fh);
  return rc;
}

/* One settings open per case whose layer takes MPI-IO hints; a file the front end created with a
 * layout, or an earlier run's file (reuse), is opened as it is and kept; any other is removed
 * again (it is this run's own path, created by this open). */
int pario_settings_run(const pario_run *run, const pario_world *w) {
  /* ROMIO prints on rank 0 of each file's communicator: keep one report per case, world rank 0's */
  if (w->rank != 0) unsetenv("ROMIO_PRINT_HINTS");
  int rc = 0;
  for (int ci = 0; ci < run->ncases && !rc; ci++) {
    const pario_case *cs = &run->cases[ci];
    const pario_backend *be = pario_backend_find(cs->backend);
    if (cs->workload == PARIO_WL_METADATA || !be || be->missing || !(be->caps & PARIO_CAP_HINTS)) continue;
    pario_ctx c;
    rc = pario_agree(pario_ctx_init(&c, run, ci, w), w);
    /* -E: a file that is there before the run is the user's: opened as it is, never removed */
    int existed = !rc && cs->use_existing && c.g.member == 0 && access(c.wpath, F_OK) == 0;
    if (!rc) {
      MPI_Barrier(MPI_COMM_WORLD);
      rc = pario_agree(open_close(&c), w);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    if (!rc && !cs->precreated && !cs->reuse && !existed && c.g.member == 0 && pario_ctx_io_rank(&c) &&
        pario_ctx_remove(&c))
      pario_log(PARIO_LOG_WARN, "could not remove %s", c.wpath);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!rc && w->rank == 0) {
      char line[96];
      snprintf(line, sizeof line, "{\"event\":\"settings\",\"case\":%d}", ci);
      pario_progress(line);
    }
    pario_ctx_free(&c);
  }
  return rc;
}
