/* The profiler's counters, defined once (issue 5), as Darshan defines its counters in its
 * *-log-format.h X-macros.
 *
 * Each module lists its counters as I(name, kind, op, doc) for 64-bit integers and
 * F(name, kind, op, doc) for doubles. From these lists come the C enums, the names written into
 * every log (the Python reader takes the names from the log itself, so there is no second list),
 * the units shown by `pario profile show`, the operation used when records of one file from
 * several ranks or processes are merged, and the one-line meaning of each counter, which
 * `pario-counters` prints (csrc/profile/counters_tool.c) and logs do not carry (log size matters).
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

/* hand-aligned tables below: one counter per line */
// clang-format off
/* Bucket upper bounds (exclusive) shared by every histogram; the last bucket is open. */
#define PARIO_SIZE_BUCKETS(X)                                                    \
  X(0_100, 100) X(100_1K, 1024) X(1K_10K, 10240) X(10K_100K, 102400)             \
  X(100K_1M, 1048576) X(1M_4M, 4194304) X(4M_10M, 10485760)                      \
  X(10M_100M, 104857600) X(100M_1G, 1073741824) X(1G_PLUS, 0)

/* Counters every data module shares (prefix added per module below); OPS is "reads"/"writes". */
#define PARIO_HIST_COUNTERS(I, P, RW, OPS)                                                          \
  I(P##_SIZE_##RW##_0_100, count, sum, OPS " of 0 to 99 bytes")                                     \
  I(P##_SIZE_##RW##_100_1K, count, sum, OPS " of 100 bytes to 1 KiB (exclusive)")                   \
  I(P##_SIZE_##RW##_1K_10K, count, sum, OPS " of 1 KiB to 10 KiB (exclusive)")                      \
  I(P##_SIZE_##RW##_10K_100K, count, sum, OPS " of 10 KiB to 100 KiB (exclusive)")                  \
  I(P##_SIZE_##RW##_100K_1M, count, sum, OPS " of 100 KiB to 1 MiB (exclusive)")                    \
  I(P##_SIZE_##RW##_1M_4M, count, sum, OPS " of 1 MiB to 4 MiB (exclusive)")                        \
  I(P##_SIZE_##RW##_4M_10M, count, sum, OPS " of 4 MiB to 10 MiB (exclusive)")                      \
  I(P##_SIZE_##RW##_10M_100M, count, sum, OPS " of 10 MiB to 100 MiB (exclusive)")                  \
  I(P##_SIZE_##RW##_100M_1G, count, sum, OPS " of 100 MiB to 1 GiB (exclusive)")                    \
  I(P##_SIZE_##RW##_1G_PLUS, count, sum, OPS " of 1 GiB or more")

/* Per-rank spread: one process's own figures until the MPI reduction merges ranks. */
#define PARIO_RANK_COUNTERS(I, F, P)                                                                \
  I(P##_NPROCS, count, sum, "processes (MPI ranks) whose records of this file were merged")         \
  I(P##_FASTEST_RANK, rank, rank, "the rank that spent the least time on this file")                \
  I(P##_FASTEST_RANK_BYTES, bytes, rank, "bytes the fastest rank read and wrote")                   \
  I(P##_SLOWEST_RANK, rank, rank, "the rank that spent the most time on this file")                 \
  I(P##_SLOWEST_RANK_BYTES, bytes, rank, "bytes the slowest rank read and wrote")                   \
  F(P##_F_FASTEST_RANK_TIME, seconds, rank, "the fastest rank's time in data and metadata calls")   \
  F(P##_F_SLOWEST_RANK_TIME, seconds, rank, "the slowest rank's time in data and metadata calls")   \
  F(P##_F_VARIANCE_RANK_TIME, variance, rank, "variance of the ranks' times on this file (s^2)")    \
  F(P##_F_VARIANCE_RANK_BYTES, variance, rank, "variance of the ranks' bytes on this file")

#define PARIO_TIME_COUNTERS(F, P)                                                                   \
  F(P##_F_READ_TIME, seconds, sum, "time inside read calls, summed over calls")                     \
  F(P##_F_WRITE_TIME, seconds, sum, "time inside write calls, summed over calls")                   \
  F(P##_F_META_TIME, seconds, sum, "time inside open, close, seek, stat, sync and other calls")     \
  F(P##_F_MAX_READ_TIME, seconds, max, "the longest single read call")                              \
  F(P##_F_MAX_WRITE_TIME, seconds, max, "the longest single write call")                            \
  F(P##_F_OPEN_START_TIMESTAMP, timestamp, min, "when the first open started")                      \
  F(P##_F_CLOSE_END_TIMESTAMP, timestamp, max, "when the last close ended")                         \
  F(P##_F_READ_START_TIMESTAMP, timestamp, min, "when the first read started")                      \
  F(P##_F_READ_END_TIMESTAMP, timestamp, max, "when the last read ended")                           \
  F(P##_F_WRITE_START_TIMESTAMP, timestamp, min, "when the first write started")                    \
  F(P##_F_WRITE_END_TIMESTAMP, timestamp, max, "when the last write ended")

#define PARIO_POSIX_COUNTERS(I, F)                                                                  \
  I(POSIX_OPENS, count, sum, "open, openat and creat calls")                                        \
  I(POSIX_CLOSES, count, sum, "close calls")                                                        \
  I(POSIX_DUPS, count, sum, "dup, dup2 and dup3 calls that made a new descriptor of the file")      \
  I(POSIX_READS, count, sum, "read, pread and readv calls (and in-kernel copies out of the file)")  \
  I(POSIX_WRITES, count, sum, "write, pwrite and writev calls (and in-kernel copies into the file)") \
  I(POSIX_VECTOR_READS, count, sum, "readv and preadv calls (also counted in READS)")               \
  I(POSIX_VECTOR_WRITES, count, sum, "writev and pwritev calls (also counted in WRITES)")           \
  I(POSIX_SEEKS, count, sum, "lseek calls")                                                         \
  I(POSIX_STATS, count, sum, "stat, lstat, fstat, fstatat and statx calls")                         \
  I(POSIX_MMAPS, count, sum, "mmap calls of the file")                                              \
  I(POSIX_FSYNCS, count, sum, "fsync calls")                                                        \
  I(POSIX_FDSYNCS, count, sum, "fdatasync calls")                                                   \
  I(POSIX_TRUNCATES, count, sum, "ftruncate calls")                                                 \
  I(POSIX_UNLINKS, count, sum, "unlink and unlinkat calls")                                         \
  I(POSIX_RENAMES_SOURCE, count, sum, "renames of this path to another")                            \
  I(POSIX_RENAMES_TARGET, count, sum, "renames of another path to this one")                        \
  I(POSIX_MKDIRS, count, sum, "mkdir and mkdirat calls")                                            \
  I(POSIX_BYTES_READ, bytes, sum, "bytes read")                                                     \
  I(POSIX_BYTES_WRITTEN, bytes, sum, "bytes written")                                               \
  I(POSIX_MAX_BYTE_READ, offset, max, "offset of the last byte read at the highest offset")         \
  I(POSIX_MAX_BYTE_WRITTEN, offset, max, "offset of the last byte written at the highest offset")   \
  I(POSIX_CONSEC_READS, count, sum, "reads that start exactly where the previous read ended")       \
  I(POSIX_CONSEC_WRITES, count, sum, "writes that start exactly where the previous write ended")    \
  I(POSIX_SEQ_READS, count, sum, "reads that start at or after where the previous read ended")      \
  I(POSIX_SEQ_WRITES, count, sum, "writes that start at or after where the previous write ended")   \
  I(POSIX_RW_SWITCHES, count, sum, "changes from reading to writing or back")                       \
  I(POSIX_MEM_NOT_ALIGNED, count, sum, "calls whose buffer is not aligned to MEM_ALIGNMENT")        \
  I(POSIX_MEM_ALIGNMENT, size, max, "memory alignment tested (PARIO_PROFILE_MEMALIGN, bytes)")      \
  I(POSIX_FILE_NOT_ALIGNED, count, sum, "calls whose offset or size is no multiple of FILE_ALIGNMENT") \
  I(POSIX_FILE_ALIGNMENT, size, max, "the file system's block size, or the file's Lustre stripe size") \
  I(POSIX_STRIPE_COUNT, count, max, "the file's Lustre stripe count (1 elsewhere)")                 \
  I(POSIX_FS_TYPE, count, max, "the file system's statfs f_type magic number")                      \
  PARIO_HIST_COUNTERS(I, POSIX, READ, "reads") PARIO_HIST_COUNTERS(I, POSIX, WRITE, "writes")       \
  PARIO_RANK_COUNTERS(I, F, POSIX) PARIO_TIME_COUNTERS(F, POSIX)

#define PARIO_STDIO_COUNTERS(I, F)                                                                  \
  I(STDIO_OPENS, count, sum, "fopen and fdopen calls")                                              \
  I(STDIO_FDOPENS, count, sum, "fdopen calls (also counted in OPENS)")                              \
  I(STDIO_CLOSES, count, sum, "fclose calls")                                                       \
  I(STDIO_READS, count, sum, "fread, fgets, fgetc, getc and fscanf calls")                          \
  I(STDIO_WRITES, count, sum, "fwrite, fputs, fputc, putc, puts and fprintf/printf calls")          \
  I(STDIO_SEEKS, count, sum, "fseek and fseeko calls")                                              \
  I(STDIO_FLUSHES, count, sum, "fflush calls")                                                      \
  I(STDIO_BYTES_READ, bytes, sum, "bytes read (fscanf's are not known: 0)")                         \
  I(STDIO_BYTES_WRITTEN, bytes, sum, "bytes written")                                               \
  I(STDIO_MAX_BYTE_READ, offset, max, "offset of the last byte read at the highest offset")         \
  I(STDIO_MAX_BYTE_WRITTEN, offset, max, "offset of the last byte written at the highest offset")   \
  PARIO_HIST_COUNTERS(I, STDIO, READ, "reads") PARIO_HIST_COUNTERS(I, STDIO, WRITE, "writes")       \
  PARIO_RANK_COUNTERS(I, F, STDIO) PARIO_TIME_COUNTERS(F, STDIO)

#define PARIO_MPIIO_COUNTERS(I, F)                                                                  \
  I(MPIIO_OPENS, count, sum, "MPI_File_open calls")                                                 \
  I(MPIIO_CLOSES, count, sum, "MPI_File_close calls")                                               \
  I(MPIIO_INDEP_READS, count, sum, "independent reads (MPI_File_read, MPI_File_read_at)")           \
  I(MPIIO_INDEP_WRITES, count, sum, "independent writes (MPI_File_write, MPI_File_write_at)")       \
  I(MPIIO_COLL_READS, count, sum, "collective reads (_read_all, _read_at_all, _read_ordered)")      \
  I(MPIIO_COLL_WRITES, count, sum, "collective writes (_write_all, _write_at_all, _write_ordered)") \
  I(MPIIO_SPLIT_READS, count, sum, "split collective reads (counted at _begin)")                    \
  I(MPIIO_SPLIT_WRITES, count, sum, "split collective writes (counted at _begin)")                  \
  I(MPIIO_NB_READS, count, sum, "non-blocking reads (MPI_File_iread*), counted when posted")        \
  I(MPIIO_NB_WRITES, count, sum, "non-blocking writes (MPI_File_iwrite*), counted when posted")     \
  I(MPIIO_SHARED_READS, count, sum, "reads at the shared file pointer (MPI_File_read_shared)")      \
  I(MPIIO_SHARED_WRITES, count, sum, "writes at the shared file pointer (MPI_File_write_shared)")   \
  I(MPIIO_VIEWS, count, sum, "MPI_File_set_view calls")                                             \
  I(MPIIO_HINTS, count, sum, "MPI_File_set_info calls")                                             \
  I(MPIIO_SYNCS, count, sum, "MPI_File_sync calls")                                                 \
  I(MPIIO_BYTES_READ, bytes, sum, "bytes read (count x datatype size)")                             \
  I(MPIIO_BYTES_WRITTEN, bytes, sum, "bytes written (count x datatype size)")                       \
  I(MPIIO_RW_SWITCHES, count, sum, "changes from reading to writing or back")                       \
  PARIO_HIST_COUNTERS(I, MPIIO, READ, "reads") PARIO_HIST_COUNTERS(I, MPIIO, WRITE, "writes")       \
  PARIO_RANK_COUNTERS(I, F, MPIIO) PARIO_TIME_COUNTERS(F, MPIIO)

/* Modules: id, lower-case name used in the log, counter list. */
#define PARIO_MODULES(X)                                                          \
  X(POSIX, posix, PARIO_POSIX_COUNTERS)                                           \
  X(STDIO, stdio, PARIO_STDIO_COUNTERS)                                           \
  X(MPIIO, mpiio, PARIO_MPIIO_COUNTERS)

// clang-format on

#define PARIO_CNT_SKIP(name, kind, op, doc)
#define PARIO_CNT_ENUM(name, kind, op, doc) PARIO_##name,

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
