/* The profiler's counters, defined once (issue 5; STYLE item 5).
 *
 * Each module lists its counters as I(name, kind, op) for 64-bit integers and F(name, kind, op)
 * for doubles. From these lists come the C enums, the names written into every log (the Python
 * reader takes the names from the log itself, so there is no second list), the units shown by
 * `pario profile show` and the operation used when records of one file from several ranks or
 * processes are merged.
 *
 * kind: count | bytes | offset | size | seconds | timestamp (epoch seconds) | rank | variance
 * op:   sum | max | min (ignoring unset 0) | rank (filled by the reduction itself)
 *
 * Size histogram buckets keep exactly 1 MiB out of the "small" buckets: SIZE_*_100K_1M holds
 * 100 KiB <= size < 1 MiB and SIZE_*_1M_4M holds 1 MiB <= size < 4 MiB (Darshan lumps 1 MiB in
 * with the smaller sizes, and Drishti then calls ideal 1 MiB writes "small").
 */
#ifndef PARIO_COUNTERS_H
#define PARIO_COUNTERS_H

#define PARIO_PROFILE_FORMAT "pario-profile"
#define PARIO_PROFILE_VERSION 1

/* Bucket upper bounds (exclusive) shared by every histogram; the last bucket is open. */
#define PARIO_SIZE_BUCKETS(X)                                                    \
  X(0_100, 100) X(100_1K, 1024) X(1K_10K, 10240) X(10K_100K, 102400)             \
  X(100K_1M, 1048576) X(1M_4M, 4194304) X(4M_10M, 10485760)                      \
  X(10M_100M, 104857600) X(100M_1G, 1073741824) X(1G_PLUS, 0)

/* Counters every data module shares (prefix added per module below). */
#define PARIO_HIST_COUNTERS(I, P, RW)                                             \
  I(P##_SIZE_##RW##_0_100, count, sum) I(P##_SIZE_##RW##_100_1K, count, sum)      \
  I(P##_SIZE_##RW##_1K_10K, count, sum) I(P##_SIZE_##RW##_10K_100K, count, sum)   \
  I(P##_SIZE_##RW##_100K_1M, count, sum) I(P##_SIZE_##RW##_1M_4M, count, sum)     \
  I(P##_SIZE_##RW##_4M_10M, count, sum) I(P##_SIZE_##RW##_10M_100M, count, sum)   \
  I(P##_SIZE_##RW##_100M_1G, count, sum) I(P##_SIZE_##RW##_1G_PLUS, count, sum)

#define PARIO_RANK_COUNTERS(I, F, P)                                              \
  I(P##_NPROCS, count, sum)                                                       \
  I(P##_FASTEST_RANK, rank, rank) I(P##_FASTEST_RANK_BYTES, bytes, rank)          \
  I(P##_SLOWEST_RANK, rank, rank) I(P##_SLOWEST_RANK_BYTES, bytes, rank)          \
  F(P##_F_FASTEST_RANK_TIME, seconds, rank) F(P##_F_SLOWEST_RANK_TIME, seconds, rank) \
  F(P##_F_VARIANCE_RANK_TIME, variance, rank) F(P##_F_VARIANCE_RANK_BYTES, variance, rank)

#define PARIO_TIME_COUNTERS(F, P)                                                 \
  F(P##_F_READ_TIME, seconds, sum) F(P##_F_WRITE_TIME, seconds, sum)              \
  F(P##_F_META_TIME, seconds, sum)                                                \
  F(P##_F_MAX_READ_TIME, seconds, max) F(P##_F_MAX_WRITE_TIME, seconds, max)      \
  F(P##_F_OPEN_START_TIMESTAMP, timestamp, min) F(P##_F_CLOSE_END_TIMESTAMP, timestamp, max) \
  F(P##_F_READ_START_TIMESTAMP, timestamp, min) F(P##_F_READ_END_TIMESTAMP, timestamp, max) \
  F(P##_F_WRITE_START_TIMESTAMP, timestamp, min) F(P##_F_WRITE_END_TIMESTAMP, timestamp, max)

#define PARIO_POSIX_COUNTERS(I, F)                                                \
  I(POSIX_OPENS, count, sum) I(POSIX_CLOSES, count, sum) I(POSIX_DUPS, count, sum) \
  I(POSIX_READS, count, sum) I(POSIX_WRITES, count, sum)                          \
  I(POSIX_VECTOR_READS, count, sum) I(POSIX_VECTOR_WRITES, count, sum)            \
  I(POSIX_SEEKS, count, sum) I(POSIX_STATS, count, sum) I(POSIX_MMAPS, count, sum) \
  I(POSIX_FSYNCS, count, sum) I(POSIX_FDSYNCS, count, sum) I(POSIX_TRUNCATES, count, sum) \
  I(POSIX_UNLINKS, count, sum) I(POSIX_RENAMES_SOURCE, count, sum)                \
  I(POSIX_RENAMES_TARGET, count, sum) I(POSIX_MKDIRS, count, sum)                 \
  I(POSIX_BYTES_READ, bytes, sum) I(POSIX_BYTES_WRITTEN, bytes, sum)              \
  I(POSIX_MAX_BYTE_READ, offset, max) I(POSIX_MAX_BYTE_WRITTEN, offset, max)      \
  I(POSIX_CONSEC_READS, count, sum) I(POSIX_CONSEC_WRITES, count, sum)            \
  I(POSIX_SEQ_READS, count, sum) I(POSIX_SEQ_WRITES, count, sum)                  \
  I(POSIX_RW_SWITCHES, count, sum)                                                \
  I(POSIX_MEM_NOT_ALIGNED, count, sum) I(POSIX_MEM_ALIGNMENT, size, max)          \
  I(POSIX_FILE_NOT_ALIGNED, count, sum) I(POSIX_FILE_ALIGNMENT, size, max)        \
  I(POSIX_STRIPE_COUNT, count, max) I(POSIX_FS_TYPE, count, max)                  \
  PARIO_HIST_COUNTERS(I, POSIX, READ) PARIO_HIST_COUNTERS(I, POSIX, WRITE)        \
  PARIO_RANK_COUNTERS(I, F, POSIX) PARIO_TIME_COUNTERS(F, POSIX)

#define PARIO_STDIO_COUNTERS(I, F)                                                \
  I(STDIO_OPENS, count, sum) I(STDIO_FDOPENS, count, sum) I(STDIO_CLOSES, count, sum) \
  I(STDIO_READS, count, sum) I(STDIO_WRITES, count, sum)                          \
  I(STDIO_SEEKS, count, sum) I(STDIO_FLUSHES, count, sum)                         \
  I(STDIO_BYTES_READ, bytes, sum) I(STDIO_BYTES_WRITTEN, bytes, sum)              \
  I(STDIO_MAX_BYTE_READ, offset, max) I(STDIO_MAX_BYTE_WRITTEN, offset, max)      \
  PARIO_HIST_COUNTERS(I, STDIO, READ) PARIO_HIST_COUNTERS(I, STDIO, WRITE)        \
  PARIO_RANK_COUNTERS(I, F, STDIO) PARIO_TIME_COUNTERS(F, STDIO)

#define PARIO_MPIIO_COUNTERS(I, F)                                                \
  I(MPIIO_OPENS, count, sum) I(MPIIO_CLOSES, count, sum)                          \
  I(MPIIO_INDEP_READS, count, sum) I(MPIIO_INDEP_WRITES, count, sum)              \
  I(MPIIO_COLL_READS, count, sum) I(MPIIO_COLL_WRITES, count, sum)                \
  I(MPIIO_SPLIT_READS, count, sum) I(MPIIO_SPLIT_WRITES, count, sum)              \
  I(MPIIO_NB_READS, count, sum) I(MPIIO_NB_WRITES, count, sum)                    \
  I(MPIIO_SHARED_READS, count, sum) I(MPIIO_SHARED_WRITES, count, sum)            \
  I(MPIIO_VIEWS, count, sum) I(MPIIO_HINTS, count, sum) I(MPIIO_SYNCS, count, sum) \
  I(MPIIO_BYTES_READ, bytes, sum) I(MPIIO_BYTES_WRITTEN, bytes, sum)              \
  I(MPIIO_RW_SWITCHES, count, sum)                                                \
  PARIO_HIST_COUNTERS(I, MPIIO, READ) PARIO_HIST_COUNTERS(I, MPIIO, WRITE)        \
  PARIO_RANK_COUNTERS(I, F, MPIIO) PARIO_TIME_COUNTERS(F, MPIIO)

/* Modules: id, lower-case name used in the log, counter list. */
#define PARIO_MODULES(X)                                                          \
  X(POSIX, posix, PARIO_POSIX_COUNTERS)                                           \
  X(STDIO, stdio, PARIO_STDIO_COUNTERS)                                           \
  X(MPIIO, mpiio, PARIO_MPIIO_COUNTERS)

#define PARIO_CNT_SKIP(name, kind, op)
#define PARIO_CNT_ENUM(name, kind, op) PARIO_##name,

/* Integer counter enums: PARIO_POSIX_OPENS ... PARIO_POSIX_NUM_I. */
enum { PARIO_POSIX_COUNTERS(PARIO_CNT_ENUM, PARIO_CNT_SKIP) PARIO_POSIX_NUM_I };
enum { PARIO_POSIX_COUNTERS(PARIO_CNT_SKIP, PARIO_CNT_ENUM) PARIO_POSIX_NUM_F };
enum { PARIO_STDIO_COUNTERS(PARIO_CNT_ENUM, PARIO_CNT_SKIP) PARIO_STDIO_NUM_I };
enum { PARIO_STDIO_COUNTERS(PARIO_CNT_SKIP, PARIO_CNT_ENUM) PARIO_STDIO_NUM_F };
enum { PARIO_MPIIO_COUNTERS(PARIO_CNT_ENUM, PARIO_CNT_SKIP) PARIO_MPIIO_NUM_I };
enum { PARIO_MPIIO_COUNTERS(PARIO_CNT_SKIP, PARIO_CNT_ENUM) PARIO_MPIIO_NUM_F };

enum pario_module {
#define PARIO_MOD_ENUM(ID, name, list) PARIO_MOD_##ID,
  PARIO_MODULES(PARIO_MOD_ENUM)
#undef PARIO_MOD_ENUM
  PARIO_NUM_MODULES
};

/* The largest counter arrays of any module, so one record type serves all modules. */
#define PARIO_MAX_I 80
#define PARIO_MAX_F 24

/* Reduction operations, as numbers the merge code switches on. */
enum pario_merge { PARIO_MERGE_sum, PARIO_MERGE_max, PARIO_MERGE_min, PARIO_MERGE_rank };

/* Histogram counters of every module are laid out in the same order as PARIO_SIZE_BUCKETS,
 * read then write: index of the first bucket per module. */
#define PARIO_NUM_BUCKETS 10

#endif
