/* The global array that every library layer stores; see layout.h. */
#include "backends/layout.h"

#include <stdlib.h>
#include <string.h>

#include "pario/options.h"
#include "pario/pattern.h"

void pario_layout_init(pario_layout *l, const pario_case *cs, const pario_geom *g) {
  const pario_pattern *p = &cs->pat;
  memset(l, 0, sizeof *l);
  l->kind = p->kind;
  l->view = cs->view && p->kind != PARIO_RANDOM;
  l->block = p->block;
  l->member = (uint64_t)g->member;
  l->nmembers = (uint64_t)g->nmembers;
  if (p->kind == PARIO_BTIO) { /* BTIO's record variable: [step][z][y][x][5] */
    l->nd = 5;
    l->view = 1;
    l->gdims[0] = p->steps;
    for (int d = 0; d < 3; d++) l->gdims[3 - d] = p->points[d], l->points[d] = p->points[d];
    l->gdims[4] = PARIO_BTIO_POINT / PARIO_ELEM;
    l->cells = pario_btio_cells(g->nmembers);
    l->call = g->call_bytes;
    l->ncalls = p->steps;
    return;
  }
  if (p->kind == PARIO_SUBARRAY) {
    l->nd = p->ndims;
    for (int d = 0; d < p->ndims; d++) {
      l->ldims[d] = p->ldims[d];
      l->gdims[d] = p->ldims[d] * (uint64_t)g->grid[d];
      l->lstart[d] = p->ldims[d] * (uint64_t)g->coords[d];
    }
  } else {
    l->nd = 1;
    l->gdims[0] = g->file_bytes / PARIO_ELEM;
  }
  l->call = l->view ? p->xfer : pario_pattern_call_bytes(p);
  l->ncalls = l->call ? pario_pattern_member_bytes(p) / l->call : 0;
}

void pario_layout_btio_box(const pario_layout *l, uint64_t step, int c, pario_box *box) {
  pario_pattern p = {.kind = PARIO_BTIO, .steps = l->gdims[0]};
  pario_btio_cell cell;
  for (int d = 0; d < 3; d++) p.points[d] = l->points[d];
  pario_btio_cell_of(&p, (int)l->member, (int)l->nmembers, c, &cell);
  memset(box, 0, sizeof *box);
  box->start[0] = step;
  box->count[0] = 1;
  for (int d = 0; d < 3; d++) box->start[3 - d] = cell.low[d], box->count[3 - d] = cell.size[d];
  box->count[4] = PARIO_BTIO_POINT / PARIO_ELEM;
}

uint64_t pario_box_elems(const pario_box *b, int nd) {
  uint64_t n = 1;
  for (int d = 0; d < nd; d++) n *= b->count[d];
  return n;
}

/* Boxes of the element range [a, b) of the array dims[d..nd-1] (C order), leading coordinates
 * fixed in base; at most 2 per dimension: a partial head, whole slabs, a partial tail. */
static int split(const uint64_t *dims, int nd, int d, uint64_t a, uint64_t b, pario_box base, pario_box *out, int n) {
  if (a >= b) return n;
  if (d == nd - 1) {
    base.start[d] = a;
    base.count[d] = b - a;
    out[n++] = base;
    return n;
  }
  uint64_t row = 1;
  for (int k = d + 1; k < nd; k++) row *= dims[k];
  uint64_t a0 = a / row, b0 = b / row;
  base.count[d] = 1;
  if (a0 == b0) {
    base.start[d] = a0;
    return split(dims, nd, d + 1, a - a0 * row, b - a0 * row, base, out, n);
  }
  if (a % row) {
    base.start[d] = a0;
    n = split(dims, nd, d + 1, a % row, row, base, out, n);
    a0++;
  }
  if (b0 > a0) {
    pario_box whole = base;
    whole.start[d] = a0;
    whole.count[d] = b0 - a0;
    for (int k = d + 1; k < nd; k++) whole.start[k] = 0, whole.count[k] = dims[k];
    out[n++] = whole;
  }
  if (b % row) {
    base.start[d] = b0;
    n = split(dims, nd, d + 1, 0, b % row, base, out, n);
  }
  return n;
}

int pario_layout_boxes(const pario_layout *l, uint64_t offset, uint64_t len, pario_box *out) {
  pario_box base;
  memset(&base, 0, sizeof base);
  uint64_t e = offset / PARIO_ELEM, ne = len / PARIO_ELEM;
  if (l->nd == 1 && l->kind != PARIO_SUBARRAY) {
    if (l->view) { /* segmented through a view: the member's stream, block by block */
      uint64_t per = l->block / PARIO_ELEM, seg = e / per;
      e = seg * l->nmembers * per + l->member * per + e % per;
    }
    out[0].start[0] = e;
    out[0].count[0] = ne;
    return 1;
  }
  if (!l->view) return split(l->gdims, l->nd, 0, e, e + ne, base, out, 0);
  int n = split(l->ldims, l->nd, 0, e, e + ne, base, out, 0);
  for (int k = 0; k < n; k++)
    for (int d = 0; d < l->nd; d++) out[k].start[d] += l->lstart[d];
  return n;
}

int pario_layout_chunk(const pario_layout *l, const char *text, uint64_t *chunk) {
  if (!strcmp(text, "block")) {
    if (l->kind == PARIO_SUBARRAY)
      for (int d = 0; d < l->nd; d++) chunk[d] = l->ldims[d];
    else
      chunk[0] = (l->kind == PARIO_SEGMENTED ? l->block : l->call) / PARIO_ELEM;
    return 0;
  }
  if (pario_parse_dims(text, l->nd, chunk)) return -1;
  for (int d = 0; d < l->nd; d++)
    if (chunk[d] > l->gdims[d]) chunk[d] = l->gdims[d];
  return 0;
}
