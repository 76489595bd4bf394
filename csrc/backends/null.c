/* Moves nothing: for testing the engine's phases, timing and reductions alone (fio's null). */
#include <stdlib.h>

#include "pario/backend.h"
#include "pario/errors.h"

static int null_open(const pario_file *pub, pario_file **fh) {
  pario_file *f = malloc(sizeof *f);
  if (!f) return pario_err(PARIO_E_NOMEM, "out of memory");
  *f = *pub;
  *fh = f;
  return 0;
}
static int null_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) { return 0; }
static int null_close(pario_file *fh) {
  free(fh);
  return 0;
}
static int null_sync(pario_file *fh) { return 0; }

const pario_backend pario_backend_null = {
    .abi = PARIO_BACKEND_ABI,
    .name = "null",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_NODATA,
    .open = null_open,
    .xfer = null_xfer,
    .xfer_all = null_xfer,
    .close = null_close,
    .sync = null_sync,
};
