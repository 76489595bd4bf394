/* The per-operation record update, shared by records.c and the wrappers that inline it.
 * Internal to libpario-preload.so; include after profile.h. */
#ifndef PARIO_RECORD_IO_H
#define PARIO_RECORD_IO_H

#include "profile/profile.h"

#pragma GCC visibility push(hidden)

/* Index (+1, 0 = module lacks it) of the counters the generic update touches. */
struct pario_modidx {
  int ops[2], bytes[2], maxb[2], consec[2], seq[2], hist[2], ts_s[2], ts_e[2], t[2], tmax[2];
  int rw_sw, mem_na, mem_al, file_na, file_al, t_meta, ts_open, ts_close;
};
#define X1(v) ((v) + 1)
#define MOD_COMMON(P)                                                                          \
  .bytes = {X1(PARIO_##P##_BYTES_READ), X1(PARIO_##P##_BYTES_WRITTEN)},                        \
  .maxb = {X1(PARIO_##P##_MAX_BYTE_READ), X1(PARIO_##P##_MAX_BYTE_WRITTEN)},                   \
  .hist = {X1(PARIO_##P##_SIZE_READ_0_100), X1(PARIO_##P##_SIZE_WRITE_0_100)},                 \
  .ts_s = {X1(PARIO_##P##_F_READ_START_TIMESTAMP), X1(PARIO_##P##_F_WRITE_START_TIMESTAMP)},   \
  .ts_e = {X1(PARIO_##P##_F_READ_END_TIMESTAMP), X1(PARIO_##P##_F_WRITE_END_TIMESTAMP)},       \
  .t = {X1(PARIO_##P##_F_READ_TIME), X1(PARIO_##P##_F_WRITE_TIME)},                            \
  .tmax = {X1(PARIO_##P##_F_MAX_READ_TIME), X1(PARIO_##P##_F_MAX_WRITE_TIME)},                 \
  .t_meta = X1(PARIO_##P##_F_META_TIME), .ts_open = X1(PARIO_##P##_F_OPEN_START_TIMESTAMP),    \
  .ts_close = X1(PARIO_##P##_F_CLOSE_END_TIMESTAMP)
static const struct pario_modidx pario_midx[PARIO_NUM_MODULES] = {
    [PARIO_MOD_POSIX] = {MOD_COMMON(POSIX),
                         .ops = {X1(PARIO_POSIX_READS), X1(PARIO_POSIX_WRITES)},
                         .consec = {X1(PARIO_POSIX_CONSEC_READS), X1(PARIO_POSIX_CONSEC_WRITES)},
                         .seq = {X1(PARIO_POSIX_SEQ_READS), X1(PARIO_POSIX_SEQ_WRITES)},
                         .rw_sw = X1(PARIO_POSIX_RW_SWITCHES),
                         .mem_na = X1(PARIO_POSIX_MEM_NOT_ALIGNED), .mem_al = X1(PARIO_POSIX_MEM_ALIGNMENT),
                         .file_na = X1(PARIO_POSIX_FILE_NOT_ALIGNED), .file_al = X1(PARIO_POSIX_FILE_ALIGNMENT)},
    [PARIO_MOD_STDIO] = {MOD_COMMON(STDIO), .ops = {X1(PARIO_STDIO_READS), X1(PARIO_STDIO_WRITES)}},
    /* MPI-IO operations are counted by form (collective, split, ...) in the wrappers; MPI-IO has
     * no byte offsets here because explicit offsets are in etypes of the view. */
    [PARIO_MOD_MPIIO] = {.bytes = {X1(PARIO_MPIIO_BYTES_READ), X1(PARIO_MPIIO_BYTES_WRITTEN)},
                         .hist = {X1(PARIO_MPIIO_SIZE_READ_0_100), X1(PARIO_MPIIO_SIZE_WRITE_0_100)},
                         .ts_s = {X1(PARIO_MPIIO_F_READ_START_TIMESTAMP), X1(PARIO_MPIIO_F_WRITE_START_TIMESTAMP)},
                         .ts_e = {X1(PARIO_MPIIO_F_READ_END_TIMESTAMP), X1(PARIO_MPIIO_F_WRITE_END_TIMESTAMP)},
                         .t = {X1(PARIO_MPIIO_F_READ_TIME), X1(PARIO_MPIIO_F_WRITE_TIME)},
                         .tmax = {X1(PARIO_MPIIO_F_MAX_READ_TIME), X1(PARIO_MPIIO_F_MAX_WRITE_TIME)},
                         .rw_sw = X1(PARIO_MPIIO_RW_SWITCHES), .t_meta = X1(PARIO_MPIIO_F_META_TIME),
                         .ts_open = X1(PARIO_MPIIO_F_OPEN_START_TIMESTAMP),
                         .ts_close = X1(PARIO_MPIIO_F_CLOSE_END_TIMESTAMP)},
/* The I/O libraries' modules: calls by direction, bytes asked for, sizes, times; no offsets. */
#define LIB_MOD(ID)                                                                                \
  [PARIO_MOD_##ID] = {.ops = {X1(PARIO_##ID##_READS), X1(PARIO_##ID##_WRITES)},                    \
                      .bytes = {X1(PARIO_##ID##_BYTES_READ), X1(PARIO_##ID##_BYTES_WRITTEN)},      \
                      .hist = {X1(PARIO_##ID##_SIZE_READ_0_100), X1(PARIO_##ID##_SIZE_WRITE_0_100)}, \
                      .ts_s = {X1(PARIO_##ID##_F_READ_START_TIMESTAMP), X1(PARIO_##ID##_F_WRITE_START_TIMESTAMP)}, \
                      .ts_e = {X1(PARIO_##ID##_F_READ_END_TIMESTAMP), X1(PARIO_##ID##_F_WRITE_END_TIMESTAMP)}, \
                      .t = {X1(PARIO_##ID##_F_READ_TIME), X1(PARIO_##ID##_F_WRITE_TIME)},          \
                      .tmax = {X1(PARIO_##ID##_F_MAX_READ_TIME), X1(PARIO_##ID##_F_MAX_WRITE_TIME)}, \
                      .rw_sw = X1(PARIO_##ID##_RW_SWITCHES), .t_meta = X1(PARIO_##ID##_F_META_TIME), \
                      .ts_open = X1(PARIO_##ID##_F_OPEN_START_TIMESTAMP),                          \
                      .ts_close = X1(PARIO_##ID##_F_CLOSE_END_TIMESTAMP)},
    LIB_MOD(H5F) LIB_MOD(H5D) LIB_MOD(PNETCDF_FILE) LIB_MOD(PNETCDF_VAR) LIB_MOD(NETCDF_FILE)
    LIB_MOD(NETCDF_VAR) LIB_MOD(ADIOS2_FILE) LIB_MOD(ADIOS2_VAR)
#undef LIB_MOD
};

/* Every module's per-rank spread counters (PARIO_RANK_COUNTERS): the index of its NPROCS (then
 * FASTEST_RANK, FASTEST_RANK_BYTES, SLOWEST_RANK, SLOWEST_RANK_BYTES) and of its
 * F_FASTEST_RANK_TIME (then F_SLOWEST_RANK_TIME and the two variances). */
static const int pario_rank_base[PARIO_NUM_MODULES] = {
#define RANK_BASE(ID, name, LIST) [PARIO_MOD_##ID] = PARIO_##ID##_NPROCS,
    PARIO_MODULES(RANK_BASE)
#undef RANK_BASE
};
static const int pario_rank_fbase[PARIO_NUM_MODULES] = {
#define RANK_FBASE(ID, name, LIST) [PARIO_MOD_##ID] = PARIO_##ID##_F_FASTEST_RANK_TIME,
    PARIO_MODULES(RANK_FBASE)
#undef RANK_FBASE
};
#undef MOD_COMMON
#undef X1

/* Exact top-N table; *hint is the slot that matched last, tried first (a loop usually repeats
 * one size and one stride). Slots fill in first-seen order either way. The hint slot is filled,
 * or else it is slot 0 of an empty (zeroed) table, where counting v == 0 is inserting it. */
static inline void pario_top_add(struct pario_top *t, int64_t *other, int *hint, int64_t v) {
  struct pario_top *h = &t[*hint];
  if (PARIO_LIKELY(h->val == v)) { h->cnt++; return; }
  for (int k = 0; k < PARIO_TOPN; k++) {
    if (t[k].cnt && t[k].val == v) { t[k].cnt++; *hint = k; return; }
    if (!t[k].cnt) { t[k].val = v; t[k].cnt = 1; *hint = k; return; }
  }
  (*other)++;
}

/* Histogram bucket = how many (exclusive) upper edges size has reached. No two edges share a
 * power-of-two octave, so the octave of size gives the count below it and at most one edge
 * inside it to compare with (tables filled by pario_records_init). */
extern unsigned char pario_bucket_base[64];
extern int64_t pario_bucket_edge[64];
static inline int pario_bucket(int64_t size) {
  int k = 63 - __builtin_clzll((uint64_t)size | 1);
  return pario_bucket_base[k] + (size >= pario_bucket_edge[k]);
}

/* x is a multiple of al (al > 0): a mask for the usual power of two, a division otherwise. */
static inline int pario_aligned_to(uint64_t x, uint64_t al) {
  return PARIO_LIKELY((al & (al - 1)) == 0) ? (x & (al - 1)) == 0 : x % al == 0;
}

/* The update of one data operation, written once and inlined with a constant module and kind
 * (into the POSIX and stdio data wrappers, and into pario_rec_io for MPI-IO), so that every
 * counter index is a constant and counters a module lacks cost nothing. */
static inline __attribute__((always_inline)) void pario_rec_io_inline(
    struct pario_rec *r, const int module, const int kind, int64_t off, int64_t size,
    const void *buf, int64_t t0, int64_t t1, const int vector) {
  const struct pario_modidx *m = &pario_midx[module];
  double dt = (double)(t1 - t0);
  pario_lock(&r->lock);
  r->touched = 1;
#define C(field) (m->field)
  if (C(ops[kind])) r->i[C(ops[kind]) - 1]++;
  if (module == PARIO_MOD_POSIX && PARIO_UNLIKELY(vector)) r->i[kind ? PARIO_POSIX_VECTOR_WRITES : PARIO_POSIX_VECTOR_READS]++;
  r->i[C(bytes[kind]) - 1] += size;
  r->i[C(hist[kind]) - 1 + pario_bucket(size)]++;
  if (PARIO_LIKELY(off >= 0)) {
    if (C(maxb[kind]) && size > 0 && off + size - 1 > r->i[C(maxb[kind]) - 1]) r->i[C(maxb[kind]) - 1] = off + size - 1;
    int64_t last_end = r->last_end[kind], last_start = r->last_start[kind];
    if (last_end >= 0) {
      if (C(consec[kind]) && off == last_end) r->i[C(consec[kind]) - 1]++;
      if (C(seq[kind]) && off >= last_end) r->i[C(seq[kind]) - 1]++;
    }
    if (last_start >= 0) pario_top_add(r->strides, &r->strides_other, &r->stride_hint, off - last_start);
    r->last_start[kind] = off;
    r->last_end[kind] = off + size;
    if (C(file_na) && r->i[C(file_al) - 1] > 0) {
      uint64_t al = (uint64_t)r->i[C(file_al) - 1];
      if (!pario_aligned_to((uint64_t)off, al) || !pario_aligned_to((uint64_t)size, al)) r->i[C(file_na) - 1]++;
    }
  }
  if (C(mem_na) && buf && !pario_aligned_to((uintptr_t)buf, (uint64_t)pario_cfg.mem_align)) r->i[C(mem_na) - 1]++;
  if (C(rw_sw) && r->last_kind >= 0 && r->last_kind != kind) r->i[C(rw_sw) - 1]++;
  r->last_kind = kind;
  pario_top_add(r->sizes, &r->sizes_other, &r->size_hint, size);
  r->f[C(t[kind]) - 1] += dt;
  if (dt > r->f[C(tmax[kind]) - 1]) r->f[C(tmax[kind]) - 1] = dt;
  if (!r->f[C(ts_s[kind]) - 1]) r->f[C(ts_s[kind]) - 1] = (double)t0;
  r->f[C(ts_e[kind]) - 1] = (double)t1;
  pario_unlock(&r->lock);
  if (PARIO_UNLIKELY(pario_cfg.trace)) pario_trace(r, kind ? PARIO_T_WRITE : PARIO_T_READ, off, size, t0, t1);
#undef C
}

#pragma GCC visibility pop
#endif
