/* Moves nothing: for testing the engine's phases, timing and reductions alone (fio's null). */
#include "pario/backend.h"

static int token;

static int null_open(const pario_open_args *a, void **fh) {
  *fh = &token;
  return 0;
}
static int null_xfer(void *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) { return 0; }
static int null_close(void *fh) { return 0; }
static int null_sync(void *fh) { return 0; }

const pario_backend pario_backend_null = {
    .abi = PARIO_BACKEND_ABI,
    .name = "null",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_COLLECTIVE | PARIO_CAP_NODATA,
    .open = null_open,
    .xfer = null_xfer,
    .xfer_all = null_xfer,
    .close = null_close,
    .sync = null_sync,
};
