/* How the library layers (HDF5, PnetCDF, NetCDF-4, ADIOS2) place a call: every layer stores the
 * same logical global array as the mpiio backend writes bytes, so that the layers' figures are
 * comparable on the same bytes and verify keys the read-back data by global position.
 *
 *   segmented, random: one 1-D variable of file_bytes/8 elements of 8 bytes; call (offset, len)
 *                      is the hyperslab [offset/8, offset/8 + len/8).
 *   btio:              a 5-D record variable [step][z][y][x][5] (NAS BTIO's), one call per step
 *                      made of the member's cells (pario_layout_btio_box).
 *   subarray:          a k-D variable of the global dims (ldims x grid); without a view one call
 *                      is one row; with a view (cs->view) the offset is in the member's view
 *                      space, so the call covers elements of the member's k-D block in C order,
 *                      which is in general a few boxes (a partial row, whole slabs, ...).
 *
 * A call therefore becomes at most PARIO_MAX_BOXES boxes, in increasing global C order, so that
 * the buffer fills them one after the other. */
#ifndef PARIO_LAYOUT_H
#define PARIO_LAYOUT_H

#include <stdint.h>

#include "pario/case.h"

#define PARIO_MAX_BOXES (2 * PARIO_MAX_DIMS)

typedef struct {
  uint64_t start[PARIO_MAX_DIMS], count[PARIO_MAX_DIMS];
} pario_box;

typedef struct {
  int nd;                          /* dimensions of the variable */
  uint64_t gdims[PARIO_MAX_DIMS];  /* global dims, elements */
  int view;                        /* offsets are in the member's view space */
  pario_pattern_kind kind;
  uint64_t block, member, nmembers;               /* segmented view */
  uint64_t ldims[PARIO_MAX_DIMS], lstart[PARIO_MAX_DIMS]; /* subarray: member's block */
  uint64_t call;                   /* bytes per call */
  uint64_t ncalls;                 /* calls per member per phase */
  int cells;                       /* btio: cells per member */
  uint64_t points[3];              /* btio: grid points x, y, z */
} pario_layout;

/* The layout of a member (geometry g) of a file of case cs. */
void pario_layout_init(pario_layout *l, const pario_case *cs, const pario_geom *g);
/* Boxes covering bytes [offset, offset + len) of a call; returns their number (>= 1). */
int pario_layout_boxes(const pario_layout *l, uint64_t offset, uint64_t len, pario_box *out);
/* btio (5-D record variable [step][z][y][x][5]): the box of the member's cell c in a step; a
 * call (one step) is its `cells` boxes in order, filling the buffer one after the other. */
void pario_layout_btio_box(const pario_layout *l, uint64_t step, int c, pario_box *box);
/* Elements in a box. */
uint64_t pario_box_elems(const pario_box *b, int nd);
/* The chunk dims of a "chunk" library setting: "block" (one member's block or one transfer),
 * or a comma list of nd positive integers (clamped to the array). Returns 0, or -1 when the text
 * is not valid. */
int pario_layout_chunk(const pario_layout *l, const char *text, uint64_t *chunk);

#endif
