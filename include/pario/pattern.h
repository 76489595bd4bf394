/* Access patterns: where the k-th transfer of a member goes in its file. MPI-free, so that it
 * is tested against a brute-force model (tests/c/test_pattern.c). */
#ifndef PARIO_PATTERN_H
#define PARIO_PATTERN_H

#include <stdint.h>
#include "pario/case.h"

/* Bytes of one member's data per phase. */
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
/* Fill g->grid, g->coords and g->file_bytes for member of nmembers. */
void pario_pattern_geom(const pario_pattern *p, int member, int nmembers, pario_geom *g);
/* A keyed bijection of [0, n): the random pattern's slot permutation (cycle-walking Feistel). */
uint64_t pario_permute(uint64_t i, uint64_t n, uint64_t key);

/* Data: word w of writer rank r's stream is pario_data_word(seed, r, w). */
uint64_t pario_data_word(uint64_t seed, int writer, uint64_t word);
void pario_data_fill(uint64_t seed, int writer, uint64_t first_word, uint64_t *dst, uint64_t nwords);
/* Compare; returns the number of differing words and the first one's index (or UINT64_MAX). */
uint64_t pario_data_check(uint64_t seed, int writer, uint64_t first_word, const uint64_t *src,
                          uint64_t nwords, uint64_t *first_bad);

#endif
