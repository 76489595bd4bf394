/* The offset math of every pattern against brute-force models: IOR's loops for segmented,
 * a walk over the whole global array for subarray, full coverage for random. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "pario/pattern.h"

/* Every byte of a file written by exactly one (member, stream byte), in stream order per call. */
static void coverage(const pario_pattern *p, int nm, const char *what) {
  uint64_t fb = pario_pattern_file_bytes(p, nm), n = pario_pattern_count(p), call = pario_pattern_call_bytes(p);
  unsigned char *hits = calloc(fb, 1);
  uint64_t *off = malloc(sizeof *off * n);
  int overlap = 0, outside = 0;
  for (int m = 0; m < nm; m++) {
    pario_geom g = {0};
    pario_pattern_geom(p, m, nm, &g);
    CHECK(g.file_bytes == fb, "%s: file bytes", what);
    CHECK(pario_pattern_offsets(p, &g, off, n) == 0, "%s: offsets rc", what);
    for (uint64_t k = 0; k < n; k++)
      for (uint64_t b = 0; b < call; b++) {
        if (off[k] + b >= fb) { outside++; continue; }
        if (hits[off[k] + b]++) overlap++;
      }
  }
  uint64_t missing = 0;
  for (uint64_t b = 0; b < fb; b++) missing += hits[b] == 0;
  CHECK(!overlap && !outside && !missing, "%s: overlap %d outside %d missing %llu", what, overlap, outside,
        (unsigned long long)missing);
  free(hits);
  free(off);
}

static void segmented(uint64_t xfer, uint64_t block, uint64_t segs, int nm) {
  pario_pattern p = {.kind = PARIO_SEGMENTED, .xfer = xfer, .block = block, .segments = segs};
  uint64_t n = pario_pattern_count(&p), *off = malloc(sizeof *off * n);
  CHECK(n == block / xfer * segs, "segmented count");
  for (int m = 0; m < nm; m++) {
    pario_geom g = {0};
    pario_pattern_geom(&p, m, nm, &g);
    pario_pattern_offsets(&p, &g, off, n);
    uint64_t k = 0; /* IOR: for each segment, this rank's block, transfer by transfer */
    for (uint64_t s = 0; s < segs; s++)
      for (uint64_t t = 0; t < block / xfer; t++, k++) {
        uint64_t want = s * nm * block + (uint64_t)m * block + t * xfer;
        CHECK(off[k] == want, "segmented x%llu b%llu s%llu nm%d m%d k%llu: %llu != %llu", (unsigned long long)xfer,
              (unsigned long long)block, (unsigned long long)segs, nm, m, (unsigned long long)k,
              (unsigned long long)off[k], (unsigned long long)want);
      }
  }
  free(off);
  coverage(&p, nm, "segmented");
}

/* Walk every element of the global array; the owner's stream must place it at its linear index. */
static void subarray(int nd, const uint64_t *ld, int nm) {
  pario_pattern p = {.kind = PARIO_SUBARRAY, .ndims = nd};
  memcpy(p.ldims, ld, sizeof(uint64_t) * (size_t)nd);
  uint64_t n = pario_pattern_count(&p), row = ld[nd - 1], *off = malloc(sizeof *off * n);
  int grid[PARIO_MAX_DIMS];
  pario_pattern_grid(nm, nd, grid);
  uint64_t gd[PARIO_MAX_DIMS], total = 1;
  for (int d = 0; d < nd; d++) total *= gd[d] = ld[d] * (uint64_t)grid[d];
  uint64_t **offs = calloc((size_t)nm, sizeof *offs);
  for (int m = 0; m < nm; m++) {
    pario_geom g = {0};
    pario_pattern_geom(&p, m, nm, &g);
    offs[m] = malloc(sizeof *off * n);
    pario_pattern_offsets(&p, &g, offs[m], n);
  }
  int bad = 0;
  for (uint64_t e = 0; e < total; e++) {
    uint64_t c[PARIO_MAX_DIMS], rest = e;
    for (int d = nd - 1; d >= 0; d--) { c[d] = rest % gd[d]; rest /= gd[d]; }
    int owner = 0;
    uint64_t local = 0;
    for (int d = 0; d < nd; d++) {
      owner = owner * grid[d] + (int)(c[d] / ld[d]);
      local = local * ld[d] + c[d] % ld[d];
    }
    uint64_t k = local / row, within = local % row; /* call k carries stream elements [k*row, (k+1)*row) */
    if (offs[owner][k] + within * PARIO_ELEM != e * PARIO_ELEM) bad++;
  }
  CHECK(bad == 0, "subarray nd%d nm%d: %d misplaced elements", nd, nm, bad);
  for (int m = 0; m < nm; m++) free(offs[m]);
  free(offs);
  free(off);
  coverage(&p, nm, "subarray");
}

static void random_pattern(uint64_t xfer, uint64_t block, uint64_t segs, int nm, uint64_t seed) {
  pario_pattern p = {.kind = PARIO_RANDOM, .xfer = xfer, .block = block, .segments = segs, .seed = seed};
  coverage(&p, nm, "random");
  uint64_t n = pario_pattern_count(&p), *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n);
  pario_geom g = {0};
  pario_pattern_geom(&p, 0, nm, &g);
  pario_pattern_offsets(&p, &g, a, n);
  p.seed = seed + 1;
  pario_pattern_offsets(&p, &g, b, n);
  int same = 1, sequential = 1;
  for (uint64_t k = 0; k < n; k++) {
    same &= a[k] == b[k];
    sequential &= a[k] == k * xfer;
  }
  if (n * (uint64_t)nm > 8) {
    CHECK(!same, "random: another seed gives another order");
    CHECK(!sequential, "random: not the identity");
  }
  free(a);
  free(b);
}

static void permutations(void) {
  uint64_t sizes[] = {1, 2, 3, 5, 64, 1000, 4097};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    uint64_t n = sizes[s];
    unsigned char *seen = calloc(n, 1);
    int ok = 1;
    for (uint64_t i = 0; i < n; i++) {
      uint64_t x = pario_permute(i, n, 42);
      if (x >= n || seen[x]++) ok = 0;
    }
    CHECK(ok, "permute is a bijection of [0,%llu)", (unsigned long long)n);
    free(seen);
  }
}

static void grids(void) {
  struct { int n, nd, want[3]; } cases[] = {
      {12, 2, {4, 3}}, {8, 3, {2, 2, 2}}, {6, 3, {3, 2, 1}}, {7, 2, {7, 1}}, {1, 3, {1, 1, 1}}, {16, 2, {4, 4}},
      {24, 3, {3, 2, 4}},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    int g[3];
    pario_pattern_grid(cases[k].n, cases[k].nd, g);
    int prod = 1, mono = 1;
    for (int d = 0; d < cases[k].nd; d++) {
      prod *= g[d];
      if (d && g[d] > g[d - 1]) mono = 0;
    }
    CHECK(prod == cases[k].n && mono, "grid %d over %d dims", cases[k].n, cases[k].nd);
    if (k < 6)
      for (int d = 0; d < cases[k].nd; d++) CHECK(g[d] == cases[k].want[d], "grid %d dim %d = %d", cases[k].n, d, g[d]);
  }
}

static void data(void) {
  uint64_t buf[512], first;
  pario_data_fill(7, 3, 100, buf, 512);
  CHECK(pario_data_check(7, 3, 100, buf, 512, &first) == 0, "data roundtrip");
  CHECK(pario_data_word(7, 3, 105) == buf[5], "data word");
  ((unsigned char *)buf)[8 * 77 + 3] ^= 0x10; /* one flipped bit */
  CHECK(pario_data_check(7, 3, 100, buf, 512, &first) == 1 && first == 77, "one flipped bit found at word 77");
  pario_data_fill(7, 3, 100, buf, 512);
  CHECK(pario_data_check(7, 4, 100, buf, 512, &first) == 512, "another writer's data is wrong everywhere");
  CHECK(pario_data_check(7, 3, 101, buf, 512, &first) == 512, "shifted data is wrong everywhere");
  memset(buf, 0xA5, sizeof buf);
  CHECK(pario_data_check(7, 3, 100, buf, 512, &first) == 512, "a poisoned buffer never passes");
}

int main(void) {
  for (int nm = 1; nm <= 5; nm++) {
    segmented(8, 64, 1, nm);
    segmented(8, 64, 3, nm);
    segmented(512, 4096, 4, nm);
    segmented(4096, 4096, 2, nm);
    uint64_t l1[] = {24}, l2[] = {3, 5}, l3[] = {2, 3, 4}, l4[] = {2, 1, 3, 2};
    subarray(1, l1, nm);
    subarray(2, l2, nm);
    subarray(3, l3, nm);
    subarray(4, l4, nm);
    random_pattern(8, 64, 1, nm, 1);
    random_pattern(512, 4096, 3, nm, 99);
  }
  subarray(3, (uint64_t[]){4, 4, 4}, 8);
  subarray(2, (uint64_t[]){5, 7}, 12);
  segmented(1024, 1 << 16, 5, 16);
  random_pattern(64, 1 << 12, 2, 16, 7);
  permutations();
  grids();
  data();
  return CHECK_DONE();
}
