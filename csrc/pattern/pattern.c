/* Where a member's k-th call goes in its file. See include/pario/pattern.h. */
#include "pario/pattern.h"

#include "pario/errors.h"

uint64_t pario_pattern_member_bytes(const pario_pattern *p) {
  if (p->kind == PARIO_BTIO) return 0; /* per member: pario_geom.member_bytes */
  if (p->kind == PARIO_SUBARRAY) {
    uint64_t n = PARIO_ELEM;
    for (int d = 0; d < p->ndims; d++) n *= p->ldims[d];
    return n;
  }
  return p->block * p->segments;
}

uint64_t pario_pattern_file_bytes(const pario_pattern *p, int nmembers) {
  if (p->kind == PARIO_BTIO) return pario_btio_record_bytes(p) * p->steps;
  return pario_pattern_member_bytes(p) * (uint64_t)nmembers;
}

uint64_t pario_pattern_call_bytes(const pario_pattern *p) {
  if (p->kind == PARIO_BTIO) return 0; /* per member: pario_geom.call_bytes */
  if (p->kind == PARIO_SUBARRAY) return p->ldims[p->ndims - 1] * PARIO_ELEM;
  return p->xfer;
}

uint64_t pario_pattern_count(const pario_pattern *p) {
  if (p->kind == PARIO_BTIO) return p->steps;
  uint64_t call = pario_pattern_call_bytes(p);
  return call ? pario_pattern_member_bytes(p) / call : 0;
}

void pario_pattern_grid(int nmembers, int ndims, int *grid) {
  for (int d = 0; d < ndims; d++) grid[d] = 1;
  /* Prime factors, largest first, each onto the dimension with the smallest extent so far. */
  int factors[64], nf = 0, n = nmembers;
  for (int f = 2; (long)f * f <= n; f++)
    while (n % f == 0 && nf < 64) { factors[nf++] = f; n /= f; }
  if (n > 1 && nf < 64) factors[nf++] = n;
  for (int k = nf - 1; k >= 0; k--) {
    int best = 0;
    for (int d = 1; d < ndims; d++)
      if (grid[d] < grid[best]) best = d;
    grid[best] *= factors[k];
  }
  for (int a = 0; a < ndims; a++) /* non-increasing, like MPI_Dims_create */
    for (int b = a + 1; b < ndims; b++)
      if (grid[b] > grid[a]) { int t = grid[a]; grid[a] = grid[b]; grid[b] = t; }
}

void pario_pattern_coords(int member, int ndims, const int *grid, int *coords) {
  for (int d = ndims - 1; d >= 0; d--) {
    coords[d] = member % grid[d];
    member /= grid[d];
  }
}

void pario_pattern_geom(const pario_pattern *p, int member, int nmembers, pario_geom *g) {
  g->member = member;
  g->nmembers = nmembers;
  g->file_bytes = pario_pattern_file_bytes(p, nmembers);
  g->member_bytes = pario_pattern_member_bytes(p);
  g->call_bytes = pario_pattern_call_bytes(p);
  if (p->kind == PARIO_SUBARRAY) {
    pario_pattern_grid(nmembers, p->ndims, g->grid);
    pario_pattern_coords(member, p->ndims, g->grid, g->coords);
  } else if (p->kind == PARIO_BTIO) {
    g->grid[0] = pario_btio_cells(nmembers);
    g->call_bytes = pario_btio_step_bytes(p, member, nmembers);
    g->member_bytes = g->call_bytes * p->steps;
  }
}

/* splitmix64's finalizer: a good 64-bit mixer. */
static uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t pario_permute(uint64_t i, uint64_t n, uint64_t key) {
  if (n <= 1) return 0;
  int bits = 0;
  while (bits < 64 && ((uint64_t)1 << bits) < n) bits++;
  int half = (bits + 1) / 2;
  uint64_t mask = ((uint64_t)1 << half) - 1;
  uint64_t x = i;
  do { /* cycle walking: a balanced Feistel network on 2*half bits, repeated until inside [0, n) */
    uint64_t l = x >> half, r = x & mask;
    for (uint64_t round = 0; round < 4; round++) {
      uint64_t t = l ^ (mix(r ^ key ^ (round * 0x9e3779b97f4a7c15ULL)) & mask);
      l = r;
      r = t;
    }
    x = (l << half) | r;
  } while (x >= n);
  return x;
}

static int subarray_offsets(const pario_pattern *p, const pario_geom *g, uint64_t *off, uint64_t n) {
  int nd = p->ndims;
  uint64_t gdims[PARIO_MAX_DIMS];
  for (int d = 0; d < nd; d++) gdims[d] = p->ldims[d] * (uint64_t)g->grid[d];
  for (uint64_t k = 0; k < n; k++) {
    /* row k of the local block: local coordinates of dims 0..nd-2, C order */
    uint64_t rest = k, local[PARIO_MAX_DIMS];
    for (int d = nd - 2; d >= 0; d--) {
      local[d] = rest % p->ldims[d];
      rest /= p->ldims[d];
    }
    uint64_t lin = 0;
    for (int d = 0; d < nd - 1; d++)
      lin = lin * gdims[d] + (uint64_t)g->coords[d] * p->ldims[d] + local[d];
    lin = lin * gdims[nd - 1] + (uint64_t)g->coords[nd - 1] * p->ldims[nd - 1];
    off[k] = lin * PARIO_ELEM;
  }
  return 0;
}

int pario_pattern_offsets(const pario_pattern *p, const pario_geom *g, uint64_t *off, uint64_t n) {
  if (n != pario_pattern_count(p)) return pario_err(PARIO_E_SPEC, "offset count mismatch");
  uint64_t nm = (uint64_t)g->nmembers, m = (uint64_t)g->member;
  switch (p->kind) {
    case PARIO_SEGMENTED: {
      uint64_t per = p->block / p->xfer;
      for (uint64_t k = 0; k < n; k++)
        off[k] = (k / per) * nm * p->block + m * p->block + (k % per) * p->xfer;
      return 0;
    }
    case PARIO_RANDOM: {
      uint64_t slots = nm * n;
      for (uint64_t k = 0; k < n; k++) off[k] = pario_permute(m * n + k, slots, p->seed) * p->xfer;
      return 0;
    }
    case PARIO_SUBARRAY:
      return subarray_offsets(p, g, off, n);
    case PARIO_BTIO: /* a step is not one contiguous range: it goes through a file view */
      return pario_err(PARIO_E_SPEC, "the btio pattern needs a file view");
  }
  return pario_err(PARIO_E_SPEC, "unknown pattern");
}
