/* NAS BTIO's decomposition of its 3-D array over a square number of members; see pattern.h.
 * Written from NPB's description of make_set (cell coordinates along the diagonals, slab sizes
 * with the excess points in the first slabs); tests/c/test_btio.c checks it against a walk over
 * every grid point. */
#include "pario/pattern.h"

int pario_btio_cells(int nmembers) {
  if (nmembers < 1) return 0;
  int p = 1;
  while ((p + 1) * (p + 1) <= nmembers) p++;
  return p * p == nmembers ? p : 0;
}

/* Slab k of n points cut into p slabs: the first n % p slabs get one point more. */
static void slab(uint64_t n, uint64_t p, uint64_t k, uint64_t *low, uint64_t *size) {
  uint64_t base = n / p, excess = n % p;
  if (k < excess) {
    *size = base + 1;
    *low = k * (base + 1);
  } else {
    *size = base;
    *low = excess * (base + 1) + (k - excess) * base;
  }
}

void pario_btio_cell_of(const pario_pattern *p, int member, int nmembers, int c, pario_btio_cell *out) {
  uint64_t n = (uint64_t)pario_btio_cells(nmembers), m = (uint64_t)member, k = (uint64_t)c;
  if (!n) n = 1;
  uint64_t coord[3] = {(m % n + k) % n, (m / n + n - k % n) % n, k};
  for (int d = 0; d < 3; d++) slab(p->points[d], n, coord[d], &out->low[d], &out->size[d]);
}

uint64_t pario_btio_record_bytes(const pario_pattern *p) {
  return p->points[0] * p->points[1] * p->points[2] * PARIO_BTIO_POINT;
}

uint64_t pario_btio_step_bytes(const pario_pattern *p, int member, int nmembers) {
  int n = pario_btio_cells(nmembers);
  uint64_t bytes = 0;
  for (int c = 0; c < n; c++) {
    pario_btio_cell cell;
    pario_btio_cell_of(p, member, nmembers, c, &cell);
    bytes += cell.size[0] * cell.size[1] * cell.size[2] * PARIO_BTIO_POINT;
  }
  return bytes;
}

uint64_t pario_btio_nruns(const pario_pattern *p, int member, int nmembers) {
  int n = pario_btio_cells(nmembers);
  uint64_t runs = 0;
  for (int c = 0; c < n; c++) {
    pario_btio_cell cell;
    pario_btio_cell_of(p, member, nmembers, c, &cell);
    runs += cell.size[1] * cell.size[2];
  }
  return runs;
}

void pario_btio_runs(const pario_pattern *p, int member, int nmembers, uint64_t step, uint64_t *off, uint64_t *len) {
  int n = pario_btio_cells(nmembers);
  uint64_t nx = p->points[0], ny = p->points[1], nz = p->points[2], r = 0;
  for (int c = 0; c < n; c++) {
    pario_btio_cell cell;
    pario_btio_cell_of(p, member, nmembers, c, &cell);
    for (uint64_t z = cell.low[2]; z < cell.low[2] + cell.size[2]; z++)
      for (uint64_t y = cell.low[1]; y < cell.low[1] + cell.size[1]; y++, r++) {
        off[r] = (((step * nz + z) * ny + y) * nx + cell.low[0]) * PARIO_BTIO_POINT;
        len[r] = cell.size[0] * PARIO_BTIO_POINT;
      }
  }
}
