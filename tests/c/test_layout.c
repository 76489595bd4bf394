/* layout.c against a brute-force model: the boxes of every call of every member, walked in
 * C order, must be exactly the global elements the mpiio backend's bytes land on (offset / 8),
 * in the same order, for segmented (with and without a view), random and subarray (rows, and
 * any xfer through a view). */
#include <stdlib.h>
#include <string.h>

#include "backends/layout.h"
#include "check.h"
#include "pario/pattern.h"

/* Global element indices of the elements of a box list, C order within each box. */
static uint64_t walk(const pario_layout *l, const pario_box *b, int nb, uint64_t *out) {
  uint64_t n = 0;
  for (int k = 0; k < nb; k++) {
    uint64_t total = pario_box_elems(&b[k], l->nd);
    for (uint64_t e = 0; e < total; e++) {
      uint64_t rest = e, lin = 0, coord[PARIO_MAX_DIMS];
      for (int d = l->nd - 1; d >= 0; d--) coord[d] = b[k].start[d] + rest % b[k].count[d], rest /= b[k].count[d];
      for (int d = 0; d < l->nd; d++) lin = lin * l->gdims[d] + coord[d];
      out[n++] = lin;
    }
  }
  return n;
}

/* Where element i of a member's stream is in the file (the mpiio view's semantics). */
static uint64_t model(const pario_case *cs, const pario_geom *g, uint64_t i) {
  const pario_pattern *p = &cs->pat;
  if (p->kind == PARIO_SEGMENTED) {
    uint64_t per = p->block / 8;
    return (i / per) * (uint64_t)g->nmembers * per + (uint64_t)g->member * per + i % per;
  }
  uint64_t rest = i, local[PARIO_MAX_DIMS], lin = 0;
  for (int d = p->ndims - 1; d >= 0; d--) local[d] = rest % p->ldims[d], rest /= p->ldims[d];
  for (int d = 0; d < p->ndims; d++)
    lin = lin * p->ldims[d] * (uint64_t)g->grid[d] + (uint64_t)g->coords[d] * p->ldims[d] + local[d];
  return lin;
}

static void one(pario_case *cs, int nmembers) {
  for (int m = 0; m < nmembers; m++) {
    pario_geom g;
    memset(&g, 0, sizeof g);
    pario_pattern_geom(&cs->pat, m, nmembers, &g);
    pario_layout l;
    pario_layout_init(&l, cs, &g);
    uint64_t call = l.call, n = l.ncalls, *off = malloc(sizeof *off * n);
    uint64_t *got = malloc(sizeof *got * (call / 8)), ok = 1;
    if (cs->view) for (uint64_t k = 0; k < n; k++) off[k] = k * call;
    else pario_pattern_offsets(&cs->pat, &g, off, n);
    for (uint64_t k = 0; k < n && ok; k++) {
      pario_box b[PARIO_MAX_BOXES];
      int nb = pario_layout_boxes(&l, off[k], call, b);
      uint64_t cnt = walk(&l, b, nb, got);
      ok = cnt == call / 8 && nb <= 2 * l.nd;
      for (uint64_t e = 0; e < cnt && ok; e++) {
        uint64_t want = cs->view ? model(cs, &g, k * (call / 8) + e) : off[k] / 8 + e;
        ok = got[e] == want;
      }
      CHECK(ok, "kind %d view %d member %d of %d: call %llu (%d boxes)", cs->pat.kind, cs->view, m, nmembers,
            (unsigned long long)k, nb);
    }
    free(off);
    free(got);
  }
}

int main(void) {
  pario_case cs;
  srand(7);
  for (int t = 0; t < 300; t++) {
    memset(&cs, 0, sizeof cs);
    int kind = t % 3, nm = 1 + rand() % 6;
    cs.pat.seed = (uint64_t)t;
    if (kind < 2) { /* segmented or random */
      cs.pat.kind = kind ? PARIO_RANDOM : PARIO_SEGMENTED;
      cs.pat.xfer = 8 * (uint64_t)(1 + rand() % 5);
      cs.pat.block = cs.pat.xfer * (uint64_t)(1 + rand() % 4);
      cs.pat.segments = (uint64_t)(1 + rand() % 3);
      cs.view = !kind && (t / 3) % 2;
    } else {
      cs.pat.kind = PARIO_SUBARRAY;
      cs.pat.ndims = 1 + rand() % 4;
      uint64_t elems = 1;
      for (int d = 0; d < cs.pat.ndims; d++) elems *= (cs.pat.ldims[d] = (uint64_t)(1 + rand() % 5));
      cs.view = (t / 3) % 2;
      uint64_t x = 1 + (uint64_t)rand() % elems;
      while (elems % x) x--; /* xfer divides the block, as the engine requires */
      cs.pat.xfer = 8 * x;
    }
    one(&cs, nm);
  }
  return CHECK_DONE();
}
