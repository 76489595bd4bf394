/* NAS BTIO's decomposition (csrc/pattern/btio.c) against an independent computation: every grid
 * point's owner and its place in the owner's stream are worked out here from the rule itself
 * (the diagonal that holds cell (ix, iy, iz) and slab bounds found by walking the slabs), then
 * the runs btio.c gives must put each point exactly there, for 1, 4, 9 and 16 ranks, grids that
 * divide evenly and grids that do not, and more than one step. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pario/pattern.h"

/* Slab bounds of n points over p slabs, written differently from btio.c: slab k holds
 * n / p points plus one for each of the first n % p slabs, laid end to end. */
static void bounds(uint64_t n, int p, uint64_t *start) {
  start[0] = 0;
  for (int k = 0; k < p; k++) start[k + 1] = start[k] + n / (uint64_t)p + ((uint64_t)k < n % (uint64_t)p);
}

static int slab_of(const uint64_t *start, int p, uint64_t i) {
  for (int k = 0; k < p; k++)
    if (i < start[k + 1]) return k;
  return -1;
}

static void one(int P, uint64_t nx, uint64_t ny, uint64_t nz, uint64_t steps) {
  int p = pario_btio_cells(P);
  CHECK(p * p == P, "P=%d is a square of %d", P, p);
  pario_pattern pat = {.kind = PARIO_BTIO, .points = {nx, ny, nz}, .steps = steps};
  uint64_t g[3] = {nx, ny, nz}, *b[3];
  for (int d = 0; d < 3; d++) {
    b[d] = malloc(sizeof(uint64_t) * (size_t)(p + 1));
    bounds(g[d], p, b[d]);
  }
  uint64_t record = nx * ny * nz * PARIO_BTIO_POINT;
  CHECK(pario_btio_record_bytes(&pat) == record, "record bytes");

  /* the runs of every member and step, and where each run starts in the member's stream */
  uint64_t **off = calloc((size_t)P, sizeof *off), **len = calloc((size_t)P, sizeof *len), *nr = calloc((size_t)P, 8);
  uint64_t total = 0;
  for (int m = 0; m < P; m++) {
    uint64_t step = pario_btio_step_bytes(&pat, m, P);
    nr[m] = pario_btio_nruns(&pat, m, P);
    off[m] = malloc(sizeof(uint64_t) * nr[m] * steps);
    len[m] = malloc(sizeof(uint64_t) * nr[m] * steps);
    for (uint64_t s = 0; s < steps; s++) {
      pario_btio_runs(&pat, m, P, s, off[m] + s * nr[m], len[m] + s * nr[m]);
      uint64_t sum = 0;
      for (uint64_t r = 0; r < nr[m]; r++) sum += len[m][s * nr[m] + r];
      CHECK(sum == step, "P=%d m=%d: runs of a step add up to its bytes", P, m);
      for (uint64_t r = 1; r < nr[m]; r++) /* a file view needs increasing offsets */
        CHECK(off[m][s * nr[m] + r] > off[m][s * nr[m] + r - 1], "P=%d m=%d: offsets increase", P, m);
    }
    pario_geom geom = {0};
    pario_pattern_geom(&pat, m, P, &geom);
    CHECK(geom.call_bytes == step && geom.member_bytes == step * steps && geom.grid[0] == p, "geom of m=%d", m);
    total += step;
  }
  CHECK(total == record, "P=%d: the members' steps cover one record exactly", P);

  /* every point: its owner by the diagonal rule, its stream position by the owner's cells */
  int bad = 0;
  for (uint64_t s = 0; s < steps; s++)
    for (uint64_t z = 0; z < nz; z++)
      for (uint64_t y = 0; y < ny; y++)
        for (uint64_t x = 0; x < nx; x++) {
          int ix = slab_of(b[0], p, x), iy = slab_of(b[1], p, y), iz = slab_of(b[2], p, z);
          int owner = ((iy + iz) % p) * p + ((ix - iz) % p + p) % p; /* cell iz of that member */
          uint64_t pos = 0; /* bytes of the owner's earlier cells (cells c < iz), then C order */
          for (int c = 0; c < iz; c++) {
            int cx = (owner % p + c) % p, cy = ((owner / p - c) % p + p) % p;
            pos += (b[0][cx + 1] - b[0][cx]) * (b[1][cy + 1] - b[1][cy]) * (b[2][c + 1] - b[2][c]);
          }
          uint64_t sx = b[0][ix + 1] - b[0][ix], sy = b[1][iy + 1] - b[1][iy];
          pos += ((z - b[2][iz]) * sy + (y - b[1][iy])) * sx + (x - b[0][ix]);
          pos *= PARIO_BTIO_POINT;
          uint64_t file = (((s * nz + z) * ny + y) * nx + x) * PARIO_BTIO_POINT, at = 0;
          int found = 0;
          for (uint64_t r = 0; r < nr[owner] && !found; r++) {
            uint64_t o = off[owner][s * nr[owner] + r], l = len[owner][s * nr[owner] + r];
            if (file >= o && file < o + l) found = at + (file - o) == pos;
            at += l;
          }
          bad += !found;
        }
  CHECK(bad == 0, "P=%d grid %llux%llux%llu: %d points misplaced", P, (unsigned long long)nx, (unsigned long long)ny,
        (unsigned long long)nz, bad);
  for (int m = 0; m < P; m++) free(off[m]), free(len[m]);
  free(off), free(len), free(nr);
  for (int d = 0; d < 3; d++) free(b[d]);
}

/* Cell coordinates of the BTIO README's picture (9 ranks, rank 6) and NPB's rule for 16 ranks. */
static void known_cells(void) {
  pario_pattern pat = {.kind = PARIO_BTIO, .points = {9, 9, 9}, .steps = 1};
  uint64_t want[3][3] = {{0, 6, 0}, {3, 3, 3}, {6, 0, 6}}; /* (x, y, z) lows of rank 6's cells, 3 points each */
  for (int c = 0; c < 3; c++) {
    pario_btio_cell cell;
    pario_btio_cell_of(&pat, 6, 9, c, &cell);
    for (int d = 0; d < 3; d++)
      CHECK(cell.low[d] == want[c][d] && cell.size[d] == 3, "rank 6 of 9, cell %d dim %d", c, d);
  }
  pario_pattern q = {.kind = PARIO_BTIO, .points = {10, 10, 10}, .steps = 1}; /* 10 = 3 + 3 + 2 + 2 over 4 */
  pario_btio_cell cell;
  pario_btio_cell_of(&q, 5, 16, 3, &cell); /* rank 5: x0 = 1, y0 = 1; cell 3: x = 0, y = 2, z = 3 */
  CHECK(cell.low[0] == 0 && cell.size[0] == 3, "x slab 0: [0, 3)");
  CHECK(cell.low[1] == 6 && cell.size[1] == 2, "y slab 2: [6, 8)");
  CHECK(cell.low[2] == 8 && cell.size[2] == 2, "z slab 3: [8, 10)");
  CHECK(pario_btio_cells(2) == 0 && pario_btio_cells(8) == 0 && pario_btio_cells(25) == 5, "squares");
  pario_geom g = {0};
  pario_pattern_geom(&q, 0, 16, &g);
  CHECK(g.file_bytes == 1000 * PARIO_BTIO_POINT, "file bytes of one step");
  uint64_t o[1];
  CHECK(pario_pattern_offsets(&q, &g, o, 1) != 0, "btio has no offsets without a view");
}

int main(void) {
  known_cells();
  one(1, 5, 4, 3, 2);
  one(4, 8, 6, 4, 2);    /* even */
  one(4, 7, 5, 3, 3);    /* odd: slabs of 4+3, 3+2, 2+1 */
  one(9, 12, 12, 12, 1); /* class S over 9 ranks */
  one(9, 10, 11, 7, 2);
  one(16, 12, 12, 12, 1);
  one(16, 13, 9, 17, 2);
  return CHECK_DONE();
}
