/* Access patterns: where the k-th transfer of a member goes in its file. MPI-free, so that it
 * is tested against a brute-force model (tests/c/test_pattern.c). */
#ifndef PARIO_PATTERN_H
#define PARIO_PATTERN_H

#include <stdint.h>
#include "pario/case.h"

/* Bytes of one member's data per phase (patterns where every member moves the same bytes; btio:
 * 0, its members differ, see pario_geom.member_bytes). */
uint64_t pario_pattern_member_bytes(const pario_pattern *p);
/* Size of a file shared by nmembers. */
uint64_t pario_pattern_file_bytes(const pario_pattern *p, int nmembers);
/* Bytes per I/O call when offsets are explicit (no view): xfer, or one row for subarray. */
uint64_t pario_pattern_call_bytes(const pario_pattern *p);
/* Number of calls per member with explicit offsets: member_bytes / call_bytes. */
uint64_t pario_pattern_count(const pario_pattern *p);
/* File offsets of a member's calls 0..n-1, in issue order; n == pario_pattern_count(p).
 * Call k carries bytes [k*call, (k+1)*call) of the member's stream. Returns 0 or PARIO_E_SPEC. */
int pario_pattern_offsets(const pario_pattern *p, const pario_geom *g, uint64_t *off, uint64_t n);
/* Balanced process grid for nmembers over ndims (non-increasing, like MPI_Dims_create). */
void pario_pattern_grid(int nmembers, int ndims, int *grid);
/* Coordinates of member in grid (C order: last dimension fastest). */
void pario_pattern_coords(int member, int ndims, const int *grid, int *coords);
/* Fill g->grid, g->coords, g->file_bytes, g->member_bytes and g->call_bytes for member of nmembers. */
void pario_pattern_geom(const pario_pattern *p, int member, int nmembers, pario_geom *g);
/* A keyed bijection of [0, n): the random pattern's slot permutation (cycle-walking Feistel). */
uint64_t pario_permute(uint64_t i, uint64_t n, uint64_t key);

/* NAS BTIO's decomposition (btio.c): a global array of points[0] x points[1] x points[2] grid
 * points (x, y, z) of 5 doubles each, stored in C order [step][z][y][x][5], one record per step.
 * Over P = p*p members (a square), member m owns p cells; its cell c sits at cell coordinates
 *   x = (m % p + c) % p,   y = (m / p - c) mod p,   z = c
 * (NPB's make_set: the diagonal multi-partitioning of the block-tridiagonal solver), and covers
 * the points of those slabs, each dimension cut into p slabs, the first (points % p) one point
 * larger. A member's stream for a step is its cells in order c = 0..p-1, each in C order (z, y,
 * then x rows of 5 doubles); cells of increasing c lie in increasing z, so the stream's file
 * offsets increase, as an MPI file view requires. */
#define PARIO_BTIO_POINT 40 /* bytes per grid point: 5 doubles */
typedef struct {
  uint64_t low[3], size[3]; /* x, y, z: first point and points of the cell */
} pario_btio_cell;
/* p for a square nmembers (p*p), else 0. */
int pario_btio_cells(int nmembers);
/* Cell c (0..p-1) of member m. */
void pario_btio_cell_of(const pario_pattern *p, int member, int nmembers, int c, pario_btio_cell *out);
/* Bytes of one record (one step of the whole array), and of member m's cells in one step. */
uint64_t pario_btio_record_bytes(const pario_pattern *p);
uint64_t pario_btio_step_bytes(const pario_pattern *p, int member, int nmembers);
/* Contiguous file runs of member m's data in step s, in stream order: one per (cell, z, y) row of
 * x points. pario_btio_nruns gives their number; pario_btio_runs fills off[] and len[]. */
uint64_t pario_btio_nruns(const pario_pattern *p, int member, int nmembers);
void pario_btio_runs(const pario_pattern *p, int member, int nmembers, uint64_t step, uint64_t *off, uint64_t *len);

/* Data: word w of writer rank r's stream is pario_data_word(seed, r, w). */
uint64_t pario_data_word(uint64_t seed, int writer, uint64_t word);
void pario_data_fill(uint64_t seed, int writer, uint64_t first_word, uint64_t *dst, uint64_t nwords);
/* Compare; returns the number of differing words and the first one's index (or UINT64_MAX). */
uint64_t pario_data_check(uint64_t seed, int writer, uint64_t first_word, const uint64_t *src,
                          uint64_t nwords, uint64_t *first_bad);

#endif
