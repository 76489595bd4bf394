/* See dispatch.h. */
#include "backends/dispatch.h"

#include <stdio.h>
#include <unistd.h>

#include "common/log.h"

int pario_file_open(const pario_backend *be, pario_file *pub, pario_file **out) {
  pub->be = be;
  pub->collective = pub->cs->collective && be->xfer_all; /* the spec check refused the rest */
  return be->open(pub, out);
}

int pario_file_sync(pario_file *f) { return f->be->sync ? f->be->sync(f) : 0; }

int pario_file_close(pario_file *f) { return f->be->close(f); }

static char left_open[256];

void pario_backend_left_open(const char *why) {
  if (!left_open[0]) snprintf(left_open, sizeof left_open, "%s", why && why[0] ? why : "a file was left open");
}

const char *pario_backend_open_left(void) { return left_open[0] ? left_open : NULL; }

int pario_file_left_open_if_failed(const pario_file *f, int failed, const char *why) {
  int any = 0, member = 0;
  if (MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, f->comm) != MPI_SUCCESS) any = 1;
  if (!any) return 0;
  pario_backend_left_open(why);
  MPI_Comm_rank(f->comm, &member);
  if (member == 0 && truncate(f->path, 0)) pario_log(PARIO_LOG_WARN, "could not empty %s", f->path);
  return 1;
}

int pario_file_info(pario_file *f, pario_info *out) { return f->be->info ? f->be->info(f, out) : 1; }

int pario_file_lib_info(pario_file *f, pario_info *out) { return f->be->lib_info ? f->be->lib_info(f, out) : 1; }

int pario_backend_remove(const pario_backend *be, const char *path) {
  /* a backend that stores nothing (null) made no file: nothing to remove, and no warning that it could
   * not be (every repetition gave one); a file the front end created for it with a layout still goes */
  if ((be->caps & PARIO_CAP_NODATA) && access(path, F_OK) != 0) return 0;
  return be->remove ? be->remove(path) : unlink(path);
}
