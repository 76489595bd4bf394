/* See dispatch.h. */
#include "backends/dispatch.h"

#include <unistd.h>

int pario_file_open(const pario_backend *be, pario_file *pub, pario_file **out) {
  pub->be = be;
  pub->collective = pub->cs->collective && be->xfer_all; /* the spec check refused the rest */
  return be->open(pub, out);
}

int pario_file_sync(pario_file *f) { return f->be->sync ? f->be->sync(f) : 0; }

int pario_file_close(pario_file *f) { return f->be->close(f); }

int pario_file_info(pario_file *f, pario_info *out) { return f->be->info ? f->be->info(f, out) : 1; }

int pario_file_lib_info(pario_file *f, pario_info *out) { return f->be->lib_info ? f->be->lib_info(f, out) : 1; }

int pario_backend_remove(const pario_backend *be, const char *path) {
  return be->remove ? be->remove(path) : unlink(path);
}
