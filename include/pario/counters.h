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

/* The I/O libraries (issue 29): per library a file module and a dataset/variable module, each
 * with the counters every library module shares (data calls, bytes asked for, size histograms,
 * rank spread, times) and its own. A file module's data counters add up its datasets' or
 * variables' calls. A fact of the file or dataset (an alignment, a chunk size) is a counter of
 * kind size/count merged with max; facts that are not numbers (a layout, dimensions, an engine)
 * are the record's "props" (schemas/profile-log.schema.json). Bytes are what the call asked for:
 * elements selected x the memory type's size. */
#define PARIO_LIB_COUNTERS(I, F, P, CALLS)                                                          \
  I(P##_READS, count, sum, CALLS " that read (non-blocking ones counted when posted)")               \
  I(P##_WRITES, count, sum, CALLS " that write (non-blocking ones counted when posted)")            \
  I(P##_BYTES_READ, bytes, sum, "bytes the reads asked for (elements selected x memory type size)") \
  I(P##_BYTES_WRITTEN, bytes, sum, "bytes the writes gave (elements selected x memory type size)")  \
  I(P##_RW_SWITCHES, count, sum, "changes from reading to writing or back")                       \
  PARIO_HIST_COUNTERS(I, P, READ, "reads") PARIO_HIST_COUNTERS(I, P, WRITE, "writes")               \
  PARIO_RANK_COUNTERS(I, F, P) PARIO_TIME_COUNTERS(F, P)

#define PARIO_H5F_COUNTERS(I, F)                                                                    \
  I(H5F_OPENS, count, sum, "H5Fopen calls")                                                         \
  I(H5F_CREATES, count, sum, "H5Fcreate calls")                                                     \
  I(H5F_CLOSES, count, sum, "H5Fclose calls")                                                       \
  I(H5F_FLUSHES, count, sum, "H5Fflush calls")                                                      \
  I(H5F_MPIO, count, max, "1 if the file access property list chose the MPI-IO driver (H5Pset_fapl_mpio)") \
  I(H5F_ALIGN_THRESHOLD, size, max, "H5Pset_alignment threshold asked for (1: HDF5's default)")     \
  I(H5F_ALIGNMENT, size, max, "H5Pset_alignment alignment asked for (1: HDF5's default, none)")     \
  I(H5F_COLL_MD_READS, count, max, "1 if metadata reads were collective (H5Pset_all_coll_metadata_ops)") \
  I(H5F_COLL_MD_WRITES, count, max, "1 if metadata writes were collective (H5Pset_coll_metadata_write)") \
  I(H5F_META_BLOCK_SIZE, size, max, "H5Pset_meta_block_size (HDF5's default 2048)")                \
  I(H5F_SIEVE_BUF_SIZE, size, max, "H5Pset_sieve_buf_size (HDF5's default 65536)")                  \
  I(H5F_PAGE_BUFFER_SIZE, size, max, "H5Pset_page_buffer_size (0: no page buffering)")              \
  PARIO_LIB_COUNTERS(I, F, H5F, "H5Dwrite/H5Dread calls on the file's datasets")

#define PARIO_H5D_COUNTERS(I, F)                                                                    \
  I(H5D_OPENS, count, sum, "H5Dopen calls")                                                         \
  I(H5D_CREATES, count, sum, "H5Dcreate calls")                                                     \
  I(H5D_CLOSES, count, sum, "H5Dclose calls")                                                       \
  I(H5D_SET_EXTENTS, count, sum, "H5Dset_extent calls")                                             \
  I(H5D_SELECT_ALL, count, sum, "data calls whose file selection was the whole dataset (H5S_ALL, H5Sselect_all)") \
  I(H5D_SELECT_REGULAR, count, sum, "data calls whose file selection was one regular hyperslab")    \
  I(H5D_SELECT_IRREGULAR, count, sum, "data calls whose file selection was an irregular hyperslab (several combined)") \
  I(H5D_SELECT_POINTS, count, sum, "data calls whose file selection was points (H5Sselect_elements)") \
  I(H5D_SELECT_NONE, count, sum, "data calls that selected nothing (a rank taking part in a collective call)") \
  I(H5D_COLL_REQUESTED, count, sum, "data calls asking for a collective transfer (H5Pset_dxpl_mpio COLLECTIVE)") \
  I(H5D_INDEP_REQUESTED, count, sum, "data calls on an MPI-IO file with independent transfer (HDF5's default)") \
  I(H5D_ACTUAL_CONTIG_COLL, count, sum, "collective requests done as one collective transfer of a contiguous dataset (H5Pget_mpio_actual_io_mode)") \
  I(H5D_ACTUAL_CHUNK_COLL, count, sum, "collective requests done chunk by chunk, every chunk collectively") \
  I(H5D_ACTUAL_CHUNK_INDEP, count, sum, "collective requests done chunk by chunk, every chunk independently") \
  I(H5D_ACTUAL_CHUNK_MIXED, count, sum, "collective requests done chunk by chunk, some chunks collectively") \
  I(H5D_ACTUAL_NONE, count, sum, "collective requests HDF5 did without collective I/O (the NOCOLL counters say why)") \
  I(H5D_NOCOLL_TYPE_CONVERSION, count, sum, "collective broken: the memory and file types differ (H5Pget_mpio_no_collective_cause)") \
  I(H5D_NOCOLL_DATA_TRANSFORM, count, sum, "collective broken: a data transform was set")         \
  I(H5D_NOCOLL_MPI_TYPES_OFF, count, sum, "collective broken: MPI derived types switched off (HDF5_MPI_OPT_TYPES)") \
  I(H5D_NOCOLL_NOT_SIMPLE, count, sum, "collective broken: a dataspace neither simple nor scalar")  \
  I(H5D_NOCOLL_LAYOUT, count, sum, "collective broken: the dataset is neither contiguous nor chunked (compact)") \
  I(H5D_NOCOLL_FILTERS, count, sum, "collective broken: a filtered dataset (parallel filtered writes off)") \
  I(H5D_NOCOLL_ERROR, count, sum, "collective broken: HDF5 failed while checking whether it could")   \
  I(H5D_NOCOLL_OTHER, count, sum, "collective broken for a reason this pario does not name (a newer HDF5's cause)") \
  I(H5D_TYPE_SIZE, size, max, "bytes of one element of the dataset's type (H5Tget_size)")           \
  I(H5D_NDIMS, count, max, "dimensions of the dataset")                                             \
  I(H5D_DATASET_SIZE, size, max, "bytes of the dataset's extent (the largest seen)")                \
  I(H5D_CHUNK_SIZE, size, max, "bytes of one chunk: chunk dimensions x type size (0: not chunked)") \
  I(H5D_FILTERS, count, max, "filters in the dataset's pipeline (deflate, shuffle, ...)")           \
  I(H5D_FILE_OFFSET, offset, max, "where a contiguous dataset's data starts in the file (H5Dget_offset; 0: chunked, compact or not allocated)") \
  PARIO_LIB_COUNTERS(I, F, H5D, "H5Dwrite/H5Dread calls")

#define PARIO_PNETCDF_FILE_COUNTERS(I, F)                                                           \
  I(PNETCDF_FILE_OPENS, count, sum, "ncmpi_open calls")                                             \
  I(PNETCDF_FILE_CREATES, count, sum, "ncmpi_create calls")                                         \
  I(PNETCDF_FILE_CLOSES, count, sum, "ncmpi_close calls")                                           \
  I(PNETCDF_FILE_REDEFS, count, sum, "ncmpi_redef calls")                                           \
  I(PNETCDF_FILE_ENDDEFS, count, sum, "ncmpi_enddef and ncmpi__enddef calls")                       \
  I(PNETCDF_FILE_SYNCS, count, sum, "ncmpi_sync and ncmpi_flush calls")                             \
  I(PNETCDF_FILE_INDEP_BEGINS, count, sum, "ncmpi_begin_indep_data calls")                          \
  I(PNETCDF_FILE_WAITS, count, sum, "ncmpi_wait_all and ncmpi_wait calls")                          \
  I(PNETCDF_FILE_WAIT_REQUESTS, count, sum, "non-blocking requests the waits completed")            \
  I(PNETCDF_FILE_MAX_WAIT_REQUESTS, count, max, "the most requests one wait completed")             \
  I(PNETCDF_FILE_BUFFER_SIZE, size, max, "the buffer attached for bput calls (ncmpi_buffer_attach)") \
  I(PNETCDF_FILE_HEADER_SIZE, size, max, "bytes of the file header (ncmpi_inq_header_size)")        \
  I(PNETCDF_FILE_HEADER_EXTENT, size, max, "space reserved for the header (ncmpi_inq_header_extent)") \
  I(PNETCDF_FILE_HEADER_ALIGN, size, max, "nc_header_align_size in effect (ncmpi_inq_file_info)")   \
  I(PNETCDF_FILE_VAR_ALIGN, size, max, "nc_var_align_size in effect")                               \
  I(PNETCDF_FILE_RECORD_ALIGN, size, max, "nc_record_align_size in effect")                         \
  PARIO_LIB_COUNTERS(I, F, PNETCDF_FILE, "put/get calls on the file's variables")                   \
  F(PNETCDF_FILE_F_WAIT_TIME, seconds, sum, "time inside ncmpi_wait_all and ncmpi_wait (where non-blocking requests do their I/O)")

#define PARIO_PNETCDF_VAR_COUNTERS(I, F)                                                            \
  I(PNETCDF_VAR_COLL_WRITES, count, sum, "blocking collective puts (ncmpi_put_*_all)")              \
  I(PNETCDF_VAR_INDEP_WRITES, count, sum, "blocking independent puts (ncmpi_put_*)")                \
  I(PNETCDF_VAR_COLL_READS, count, sum, "blocking collective gets (ncmpi_get_*_all)")               \
  I(PNETCDF_VAR_INDEP_READS, count, sum, "blocking independent gets (ncmpi_get_*)")                 \
  I(PNETCDF_VAR_IPUTS, count, sum, "non-blocking puts posted (ncmpi_iput_*)")                       \
  I(PNETCDF_VAR_BPUTS, count, sum, "buffered non-blocking puts posted (ncmpi_bput_*)")              \
  I(PNETCDF_VAR_IGETS, count, sum, "non-blocking gets posted (ncmpi_iget_*)")                       \
  I(PNETCDF_VAR_VARN_CALLS, count, sum, "calls of the varn form (several subarrays in one call)")   \
  I(PNETCDF_VAR_NDIMS, count, max, "dimensions of the variable")                                    \
  I(PNETCDF_VAR_RECORD, count, max, "1 if the variable is a record variable (its first dimension is unlimited)") \
  I(PNETCDF_VAR_TYPE_SIZE, size, max, "bytes of one element in the file (the variable's external type)") \
  I(PNETCDF_VAR_FILE_OFFSET, offset, max, "where the variable starts in the file (ncmpi_inq_varoffset)") \
  PARIO_LIB_COUNTERS(I, F, PNETCDF_VAR, "put/get calls")

#define PARIO_NETCDF_FILE_COUNTERS(I, F)                                                            \
  I(NETCDF_FILE_OPENS, count, sum, "nc_open and nc_open_par calls")                                 \
  I(NETCDF_FILE_CREATES, count, sum, "nc_create and nc_create_par calls")                           \
  I(NETCDF_FILE_CLOSES, count, sum, "nc_close calls")                                               \
  I(NETCDF_FILE_REDEFS, count, sum, "nc_redef calls")                                               \
  I(NETCDF_FILE_ENDDEFS, count, sum, "nc_enddef calls")                                             \
  I(NETCDF_FILE_SYNCS, count, sum, "nc_sync calls")                                                 \
  I(NETCDF_FILE_PARALLEL, count, max, "1 if opened for parallel access (nc_create_par, nc_open_par)") \
  PARIO_LIB_COUNTERS(I, F, NETCDF_FILE, "nc_put_var*/nc_get_var* calls on the file's variables")

#define PARIO_NETCDF_VAR_COUNTERS(I, F)                                                             \
  I(NETCDF_VAR_COLL_WRITES, count, sum, "puts in collective access (parallel files, nc_var_par_access NC_COLLECTIVE)") \
  I(NETCDF_VAR_INDEP_WRITES, count, sum, "puts in independent access (parallel files)")             \
  I(NETCDF_VAR_COLL_READS, count, sum, "gets in collective access (parallel files)")                \
  I(NETCDF_VAR_INDEP_READS, count, sum, "gets in independent access (parallel files)")              \
  I(NETCDF_VAR_PAR_ACCESS, count, sum, "nc_var_par_access calls")                                   \
  I(NETCDF_VAR_NDIMS, count, max, "dimensions of the variable")                                     \
  I(NETCDF_VAR_RECORD, count, max, "1 if the variable has an unlimited dimension")                  \
  I(NETCDF_VAR_TYPE_SIZE, size, max, "bytes of one element of the variable's type")                 \
  I(NETCDF_VAR_CHUNKED, count, max, "1 if the variable is chunked (netCDF-4)")                      \
  I(NETCDF_VAR_DEFAULT_CHUNKS, count, max, "1 if chunked with the library's default chunk sizes (the program defined it and never called nc_def_var_chunking)") \
  I(NETCDF_VAR_CHUNK_SIZE, size, max, "bytes of one chunk: chunk sizes x type size (0: contiguous)") \
  I(NETCDF_VAR_DEFLATE_LEVEL, count, max, "deflate level (0: not compressed)")                      \
  I(NETCDF_VAR_SHUFFLE, count, max, "1 if the shuffle filter is on")                                \
  PARIO_LIB_COUNTERS(I, F, NETCDF_VAR, "nc_put_var*/nc_get_var* calls")

#define PARIO_ADIOS2_FILE_COUNTERS(I, F)                                                            \
  I(ADIOS2_FILE_OPENS, count, sum, "adios2_open calls")                                             \
  I(ADIOS2_FILE_CLOSES, count, sum, "adios2_close calls")                                           \
  I(ADIOS2_FILE_BEGIN_STEPS, count, sum, "adios2_begin_step calls")                                 \
  I(ADIOS2_FILE_END_STEPS, count, sum, "adios2_end_step calls")                                     \
  I(ADIOS2_FILE_PERFORM_PUTS, count, sum, "adios2_perform_puts calls")                              \
  I(ADIOS2_FILE_PERFORM_GETS, count, sum, "adios2_perform_gets calls")                              \
  I(ADIOS2_FILE_FLUSHES, count, sum, "adios2_flush calls")                                          \
  I(ADIOS2_FILE_NUM_AGGREGATORS, count, max, "NumAggregators set on the IO (0: the engine's default)") \
  I(ADIOS2_FILE_AGGREGATOR_RATIO, count, max, "AggregatorRatio set on the IO (0: not set)")         \
  I(ADIOS2_FILE_NUM_SUBFILES, count, max, "NumSubFiles set on the IO (0: not set)")                 \
  PARIO_LIB_COUNTERS(I, F, ADIOS2_FILE, "adios2_put/adios2_get calls on the engine")                \
  F(ADIOS2_FILE_F_END_STEP_TIME, seconds, sum, "time inside adios2_end_step (where deferred puts are written)") \
  F(ADIOS2_FILE_F_CLOSE_TIME, seconds, sum, "time inside adios2_close")                             \
  F(ADIOS2_FILE_F_PERFORM_TIME, seconds, sum, "time inside adios2_perform_puts/gets and adios2_flush")

#define PARIO_ADIOS2_VAR_COUNTERS(I, F)                                                             \
  I(ADIOS2_VAR_PUTS_DEFERRED, count, sum, "adios2_put calls in deferred mode (written at end_step, perform_puts or close)") \
  I(ADIOS2_VAR_PUTS_SYNC, count, sum, "adios2_put calls in sync mode")                              \
  I(ADIOS2_VAR_GETS_DEFERRED, count, sum, "adios2_get calls in deferred mode")                      \
  I(ADIOS2_VAR_GETS_SYNC, count, sum, "adios2_get calls in sync mode")                              \
  I(ADIOS2_VAR_NDIMS, count, max, "dimensions of the variable")                                     \
  I(ADIOS2_VAR_TYPE_SIZE, size, max, "bytes of one element of the variable's type")                 \
  PARIO_LIB_COUNTERS(I, F, ADIOS2_VAR, "adios2_put/adios2_get calls")

/* Modules: id, lower-case name used in the log, counter list. The library modules (from H5F on)
 * are written to a log only when they hold records. */
#define PARIO_MODULES(X)                                                          \
  X(POSIX, posix, PARIO_POSIX_COUNTERS)                                           \
  X(STDIO, stdio, PARIO_STDIO_COUNTERS)                                           \
  X(MPIIO, mpiio, PARIO_MPIIO_COUNTERS)                                           \
  X(H5F, h5f, PARIO_H5F_COUNTERS)                                                 \
  X(H5D, h5d, PARIO_H5D_COUNTERS)                                                 \
  X(PNETCDF_FILE, pnetcdf_file, PARIO_PNETCDF_FILE_COUNTERS)                      \
  X(PNETCDF_VAR, pnetcdf_var, PARIO_PNETCDF_VAR_COUNTERS)                         \
  X(NETCDF_FILE, netcdf_file, PARIO_NETCDF_FILE_COUNTERS)                         \
  X(NETCDF_VAR, netcdf_var, PARIO_NETCDF_VAR_COUNTERS)                            \
  X(ADIOS2_FILE, adios2_file, PARIO_ADIOS2_FILE_COUNTERS)                         \
  X(ADIOS2_VAR, adios2_var, PARIO_ADIOS2_VAR_COUNTERS)
#define PARIO_FIRST_LIB_MODULE PARIO_MOD_H5F

// clang-format on

#define PARIO_CNT_SKIP(name, kind, op, doc)
#define PARIO_CNT_ENUM(name, kind, op, doc) PARIO_##name,

/* Counter enums per module: PARIO_POSIX_OPENS ... PARIO_POSIX_NUM_I (integers), then the doubles. */
#define PARIO_MOD_COUNTER_ENUMS(ID, name, LIST)                   \
  enum { LIST(PARIO_CNT_ENUM, PARIO_CNT_SKIP) PARIO_##ID##_NUM_I }; \
  enum { LIST(PARIO_CNT_SKIP, PARIO_CNT_ENUM) PARIO_##ID##_NUM_F };
PARIO_MODULES(PARIO_MOD_COUNTER_ENUMS)
#undef PARIO_MOD_COUNTER_ENUMS

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
