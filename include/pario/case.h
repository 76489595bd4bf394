/* One benchmark case as the engine runs it (parsed from the spec, see schemas/spec.schema.json),
 * and one rank's place in its file. */
#ifndef PARIO_CASE_H
#define PARIO_CASE_H

#include <stdint.h>

#define PARIO_MAX_DIMS 8
#define PARIO_MAX_HINTS 64
#define PARIO_MAX_OPS 3

typedef enum { PARIO_SERIAL, PARIO_FPP, PARIO_SHARED, PARIO_NFILES, PARIO_PERNODE } pario_strategy;
typedef enum { PARIO_SEGMENTED, PARIO_SUBARRAY, PARIO_RANDOM } pario_pattern_kind;
typedef enum { PARIO_OP_WRITE, PARIO_OP_READ, PARIO_OP_VERIFY } pario_op;

/* The geometry of one member's data in a file shared by `nmembers` ranks.
 * Every member moves the same number of bytes; its data is one logical stream whose byte i
 * is placed in the file by the pattern (pattern.h). */
typedef struct {
  pario_pattern_kind kind;
  uint64_t xfer;      /* bytes per call (segmented, random; subarray through a view) */
  uint64_t block;     /* bytes per member per segment (segmented, random) */
  uint64_t segments;  /* segmented, random */
  int ndims;          /* subarray */
  uint64_t ldims[PARIO_MAX_DIMS]; /* subarray: local block, elements of PARIO_ELEM bytes, C order */
  uint64_t seed;      /* random placement and data pattern */
} pario_pattern;

#define PARIO_ELEM 8

typedef struct {
  char name[128];
  char backend[32];
  pario_strategy strategy;
  int nfiles;         /* PARIO_NFILES */
  int aggregate;      /* leaders gather and write (PARIO_SERIAL implies it) */
  pario_pattern pat;
  int nops;
  pario_op ops[PARIO_MAX_OPS];
  int reps;
  int collective, view, fsync, odirect, keep;
  int reuse;          /* read or verify files kept by an earlier run (same prefix): no preparatory write */
  int reorder;        /* read shift in ranks; -1 = ranks on this host */
  uint64_t buffer_max;
  int nhints;
  char hint_key[PARIO_MAX_HINTS][64];
  char hint_val[PARIO_MAX_HINTS][256];
} pario_case;

/* One rank's place in its file group. */
typedef struct {
  int file_index, nfiles;
  int member, nmembers;          /* index in the file's group, group size */
  int grid[PARIO_MAX_DIMS];      /* subarray process grid */
  int coords[PARIO_MAX_DIMS];    /* subarray coordinates of `member` */
  uint64_t file_bytes;           /* final size of the file */
} pario_geom;

#endif
