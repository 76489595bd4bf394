/* Cold reads in one run: before a timed read, evict the case's own files from every host's page
 * cache (fsync, then POSIX_FADV_DONTNEED: no privilege needed on files one can open; as root also
 * /proc/sys/vm/drop_caches when asked) and measure with mincore how much of them is still resident. */
#ifndef PARIO_ENGINE_PAGECACHE_H
#define PARIO_ENGINE_PAGECACHE_H

#include <stdint.h>

#include "engine/groups.h"
#include "engine/spec.h"

enum { PARIO_EVICT_NONE = 0, PARIO_EVICT_FILES = 1, PARIO_EVICT_SYSTEM = 2 };

/* What rank 0 records of one cache step, attached to the phase that follows it. */
typedef struct {
  int measured;             /* residency was measured (the case asked for it) */
  int evicted;              /* PARIO_EVICT_* that was done */
  uint64_t resident, pages; /* summed over hosts and files, after the eviction */
  double resident_max;      /* the largest share of one host's pages of the files */
  double seconds;           /* the step's wall time (outside the timed phase) */
} pario_cache_fig;

/* One file or directory (ADIOS2 outputs): fsync and drop it from this host's page cache. */
int pario_cache_evict_path(const char *path);
/* Resident pages and pages of one file or directory, this host; -1 when it cannot be measured. */
int pario_cache_count_path(const char *path, uint64_t *resident, uint64_t *pages);

/* Collective: the case's files evicted (cs->evict) and measured (cs->residency) on every host,
 * one rank of a host per file; the figures on rank 0. Returns 0 or an error every rank agrees on. */
int pario_cache_step(const pario_run *run, int ci, int nfiles, const pario_world *w, pario_cache_fig *out);

#endif
