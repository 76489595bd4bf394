/* One benchmark case as the engine runs it (parsed from the spec, see schemas/spec.schema.json),
 * and one rank's place in its file. */
#ifndef PARIO_CASE_H
#define PARIO_CASE_H

#include <stddef.h>
#include <stdint.h>

#define PARIO_MAX_DIMS 8
#define PARIO_MAX_HINTS 64
#define PARIO_MAX_OPS 5
#define PARIO_MAX_LIB 32
/* The metadata workload's tree (metadata.c): levels below the root, subdirectories per directory,
 * files in one tree (leaves x files_per_dir) and bytes per file. */
#define PARIO_MD_MAX_DEPTH 8
#define PARIO_MD_MAX_BRANCHING 64
#define PARIO_MD_MAX_FILES ((uint64_t)1 << 30)
#define PARIO_MD_MAX_FILE_SIZE ((uint64_t)1 << 30)

typedef enum { PARIO_SERIAL, PARIO_FPP, PARIO_SHARED, PARIO_NFILES, PARIO_PERNODE } pario_strategy;
typedef enum { PARIO_SEGMENTED, PARIO_SUBARRAY, PARIO_RANDOM, PARIO_BTIO } pario_pattern_kind;
typedef enum {
  PARIO_OP_WRITE, PARIO_OP_READ, PARIO_OP_VERIFY, /* data workload */
  PARIO_OP_CREATE, PARIO_OP_STAT, PARIO_OP_OPEN, PARIO_OP_READSMALL, PARIO_OP_REMOVE /* metadata */
} pario_op;
#define PARIO_NOPS 8
/* Names in the spec and the result, indexed by pario_op. */
static inline const char *pario_op_name(int op) {
  static const char *const names[PARIO_NOPS] = {"write", "read", "verify", "create",
                                                "stat", "open_close", "read_small", "remove"};
  return op >= 0 && op < PARIO_NOPS ? names[op] : "?";
}

typedef enum { PARIO_WL_DATA, PARIO_WL_METADATA } pario_workload;

/* The metadata (mdtest-like) workload: a tree of `depth` levels with `branching` subdirectories
 * per directory; every leaf holds files_per_dir files (all ranks together when shared_dir, else
 * per rank in the rank's own tree). Every file is file_size bytes. */
typedef struct {
  uint64_t files_per_dir, file_size;
  int depth, branching, shared_dir;
  /* "NAME=VALUE": an extended attribute set on the tree's top directory when it is made, before
   * anything below it (CephFS: ceph.dir.layout=..., inherited by every file and directory made in
   * it); empty for none */
  char top_xattr[512];
} pario_md;

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
  uint64_t points[3]; /* btio: global grid points x, y, z (NAS grid_points) */
  uint64_t steps;     /* btio: records written one after the other */
  uint64_t seed;      /* random placement and data pattern */
} pario_pattern;

#define PARIO_ELEM 8
/* Distinct data per rank by default (at least one call). Like IOR's single transfer buffer, it
 * stays in the CPU caches, so that figures compare with IOR's. Measured, 4 ranks reading from
 * page cache on 2 cores with 512 KiB L2 each and a 32 MiB L3 (benchmarks/RESULTS.md): 1 MiB
 * transfers, 0.75-0.85x IOR with 4 MiB per rank, 0.97-1.19x with one call; 4 KiB transfers,
 * 0.92x with 1 MiB, 0.95-1.03x with 4 KiB, 64 KiB or 256 KiB. Beyond it the data repeats, which
 * verify accounts for; buffer_max raises it: data from DRAM, misplacement seen at any distance. */
#define PARIO_BUFFER_DEFAULT ((uint64_t)256 << 10)

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
  int read_check;     /* timed reads compared with what was written (default); 0: like IOR's -r without -R */
  int reuse;          /* read or verify files kept by an earlier run (same prefix): no preparatory write */
  int precreated;     /* the front end created the files with a layout: truncate between repetitions */
  int reorder;        /* read shift in ranks; -1 = ranks on this host */
  /* IOR's flags (README, IOR equivalents): -Y fsync after every write call; -D a write or read
     phase stops issuing calls after deadline_us (0: none), and with wearout every rank then goes
     on to the count of calls the most advanced rank reached; -u fpp files in DIR/<rank>/; -E
     write into the existing file (no truncation, kept when it was there before); -T no
     repetition starts after max_time_ms of the case (0: none) */
  int fsync_per_write, wearout, unique_dir, use_existing;
  uint64_t deadline_us, max_time_ms;
  int evict;          /* before each read/verify: evict the case's files (engine/pagecache.h PARIO_EVICT_*) */
  int residency;      /* before each read/verify: measure the files' page-cache residency (mincore) */
  uint64_t buffer_max;
  int nhints;
  char hint_key[PARIO_MAX_HINTS][64];
  char hint_val[PARIO_MAX_HINTS][256];
  int nlib;           /* library settings ("lib"), checked by the backend's lib_keys/check */
  char lib_key[PARIO_MAX_LIB][64];
  char lib_val[PARIO_MAX_LIB][256];
  pario_workload workload;
  pario_md md;
} pario_case;

/* The value of library setting key, or NULL when the case does not set it. */
static inline const char *pario_case_lib(const pario_case *c, const char *key) {
  for (int k = 0; k < c->nlib; k++) {
    const char *a = c->lib_key[k], *b = key;
    while (*a && *b && (*a | 32) == (*b | 32)) a++, b++; /* ADIOS2 parameters ignore case */
    if (!*a && !*b) return c->lib_val[k];
  }
  return NULL;
}

/* One rank's place in its file group. */
typedef struct {
  int file_index, nfiles;
  int member, nmembers;          /* index in the file's group, group size */
  int grid[PARIO_MAX_DIMS];      /* subarray process grid; btio: grid[0] = cells per member */
  int coords[PARIO_MAX_DIMS];    /* subarray coordinates of `member` */
  uint64_t file_bytes;           /* final size of the file */
  uint64_t member_bytes;         /* this member's bytes per phase (btio: differs between members) */
  uint64_t call_bytes;           /* bytes per call without a view (btio: one step of its cells) */
} pario_geom;

#endif
