/* Everything one rank prepares for a case before any timed phase: its group, geometry,
 * precomputed offsets and buffers, so that the timed loops only call the backend. */
#ifndef PARIO_CASECTX_H
#define PARIO_CASECTX_H

#include "engine/groups.h"
#include "engine/spec.h"
#include "pario/backend.h"

typedef struct {
  const pario_run *run;
  int ci;
  const pario_case *cs;
  const pario_backend *be;
  const pario_world *w;
  pario_group g;
  pario_geom geom, rgeom; /* own region; the region that reads and verify access (reorder) */
  int view;
  uint64_t n, call;       /* calls per member and bytes per call */
  uint64_t *off, *roff;   /* own offsets; read offsets (roff == off without reorder) */
  uint64_t *aoff;         /* aggregate leader: all members' offsets, [m * n + i] */
  int rwriter, rfile, shift; /* whose data reads return, from which file; effective shift */
  unsigned char *ring;    /* `slots` calls of distinct data */
  uint64_t slots;
  unsigned char *expect;  /* timed reads: what each ring slot must hold after a read (NULL: no check) */
  unsigned char *gbuf;    /* aggregate leader: one call of every member */
  unsigned char *scratch; /* verify: one call */
  char wpath[4096], rpath[4096];
  /* IOR's -D: when the running phase stops issuing calls (pario_t() clock; 0: never), and the
     calls per member the last timed write left in the file (reads after it read no further) */
  double stop_at;
  uint64_t written_n;
  int existed; /* -E: the file was there before this case (then it is never removed) */
} pario_ctx;

int pario_ctx_init(pario_ctx *c, const pario_run *run, int ci, const pario_world *w);
void pario_ctx_free(pario_ctx *c);
/* Does this rank open the file and call the backend? */
static inline int pario_ctx_io_rank(const pario_ctx *c) { return !c->g.aggregate || c->g.member == 0; }
/* Open this rank's file for writing (own region) or reading (the reorder's region), on the
 * group's communicator, or alone when the group's leader aggregates. */
int pario_ctx_open(const pario_ctx *c, pario_dir dir, pario_file **fh);
/* Remove the case's file (its layer's way: ADIOS2 outputs are directories); 0 or -1. */
int pario_ctx_remove(const pario_ctx *c);

#endif
