/* Timed phases: barrier, open, transfer loop, sync, close, per rank; then one reduction.
 * The loops call the backend and count, nothing else: offsets and data were prepared before. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backends/dispatch.h"
#include "common/log.h"
#include "engine/fsbytes.h"
#include "engine/casectx.h"
#include "engine/fault.h"
#include "engine/pagecache.h"
#include "engine/phases.h"
#include "engine/reduce.h"
#include "engine/status.h"
#include "engine/timing.h"
#include "pario/errors.h"
#include "pario/pattern.h"

#define opname(op) pario_op_name(op)
#define POISON 0xA5

typedef pario_outcome outcome;

/* Non-blocking layers: complete what xfer started (inside the timed loop). */
static int flush(pario_file *fh) { return fh ? pario_file_flush(fh) : 0; }

static void check_chunk(const pario_ctx *c, int writer, uint64_t chunk, const unsigned char *buf, uint64_t off,
                        outcome *o) {
  uint64_t words = c->call / 8, first = UINT64_MAX;
  uint64_t bad = pario_data_check(c->cs->pat.seed, writer, chunk * words, (const uint64_t *)buf, words, &first);
  o->checked += c->call;
  if (bad && !o->errors) {
    o->bad_off = off + first * 8;
    o->bad_exp = pario_data_word(c->cs->pat.seed, writer, chunk * words + first);
    o->bad_got = ((const uint64_t *)buf)[first];
  }
  o->errors += bad;
}

/* A timed read is checked as it goes, every byte it returns: when the ring of `slots` calls is
 * full (or the loop ends), before the next call overwrites it, each slot is compared with what
 * its writer wrote there (c->expect, in cache beside the ring) and poisoned again, so that a call
 * that returns without filling its buffer cannot pass. The time this takes is measured and taken
 * out of the rank's timings (o->check_s): the rank's transfer time is its calls' time, as with an
 * unchecked read. Calls [end - k + 1, end] are the window; a differing slot is counted word by
 * word for its first bad word's offset. */
static void check_window(const pario_ctx *c, uint64_t end, outcome *o) {
  double t0 = pario_t();
  uint64_t k = end % c->slots + 1, call = c->call;
  for (uint64_t i = end + 1 - k; i <= end; i++) {
    unsigned char *got = c->ring + (i % c->slots) * call;
    const unsigned char *want = c->expect + (i % c->slots) * call;
    o->checked += call;
    if (memcmp(got, want, call)) {
      uint64_t first = UINT64_MAX, bad = 0;
      for (uint64_t w = 0; w < call / 8; w++)
        if (((const uint64_t *)got)[w] != ((const uint64_t *)want)[w] && !bad++) first = w;
      if (!o->errors) {
        o->bad_off = c->roff[i] + first * 8;
        o->bad_exp = ((const uint64_t *)want)[first];
        o->bad_got = ((const uint64_t *)got)[first];
      }
      o->errors += bad;
    }
    memset(got, POISON, call);
  }
  o->check_s += pario_t() - t0;
}

static int window_ends(const pario_ctx *c, uint64_t i) { return (i + 1) % c->slots == 0 || i + 1 == c->n; }

/* One call of the transfer loops; with IOR's -Y (fsync_per_write) the backend's sync follows every
 * write: fsync (posix), MPI_File_sync (mpiio; collective, so called even after an error). */
static int put(const pario_ctx *c, pario_xfer_fn xfer, pario_file *fh, pario_dir dir, void *buf, uint64_t off,
               outcome *o) {
  int r = xfer(fh, dir, buf, c->call, off);
  if (dir == PARIO_WRITE && c->cs->fsync_per_write) {
    int rs = pario_file_sync(fh);
    o->syncs++;
    if (!r) r = rs;
  }
  return r;
}

/* IOR's -D: has the phase's deadline passed (c->stop_at, this rank's clock)? Where every call is
 * collective (collective I/O; MPI_File_sync after each write) the file's members agree, so that
 * they all stop after the same call, as IOR does. */
static int stonewall(const pario_ctx *c, const pario_file *fh, pario_dir dir, outcome *o) {
  if (c->stop_at <= 0) return 0;
  int hit = pario_t() >= c->stop_at;
  int agree = fh->collective || (dir == PARIO_WRITE && c->cs->fsync_per_write && strcmp(c->be->name, "posix"));
  if (agree && c->g.nmembers > 1) MPI_Allreduce(MPI_IN_PLACE, &hit, 1, MPI_INT, MPI_LOR, c->g.comm);
  if (hit) o->stonewalled = 1;
  return hit;
}

/* Leader-does-all: gather (write) or scatter (read, verify) one call per member per step. */
static int loop_aggregate(pario_ctx *c, pario_file *fh, pario_op op, outcome *o) {
  int rc = 0, lead = c->g.member == 0;
  pario_dir dir = op == PARIO_OP_WRITE ? PARIO_WRITE : PARIO_READ;
  for (uint64_t i = 0; i < c->n; i++) {
    unsigned char *mine = op == PARIO_OP_VERIFY ? c->scratch : c->ring + (i % c->slots) * c->call;
    if (op == PARIO_OP_WRITE)
      MPI_Gather(mine, (int)c->call, MPI_BYTE, c->gbuf, (int)c->call, MPI_BYTE, 0, c->g.comm);
    if (lead && fh && !rc) { /* a leader whose open failed (fh NULL) only takes part in the collectives */
      if (op == PARIO_OP_VERIFY) memset(c->gbuf, POISON, c->call * (uint64_t)c->g.nmembers);
      for (int m = 0; m < c->g.nmembers && !rc; m++) {
        rc = fh->be->xfer(fh, dir, c->gbuf + (uint64_t)m * c->call, c->call, c->aoff[(uint64_t)m * c->n + i]);
        o->ops++;
        o->bytes += c->call;
      }
      if (op != PARIO_OP_WRITE && !rc) rc = flush(fh);
    }
    pario_status_xfer(o->bytes);
    if (op != PARIO_OP_WRITE)
      MPI_Scatter(c->gbuf, (int)c->call, MPI_BYTE, mine, (int)c->call, MPI_BYTE, 0, c->g.comm);
    if (op == PARIO_OP_VERIFY) check_chunk(c, c->w->rank, i % c->slots, mine, c->off[i], o);
    /* after a failed read of the leader the phase is dropped (agreed), its counts with it */
    if (op == PARIO_OP_READ && c->expect && window_ends(c, i)) check_window(c, i, o);
  }
  if (lead && fh && op == PARIO_OP_WRITE && !rc) rc = flush(fh);
  return rc;
}

static int loop_direct(pario_ctx *c, pario_file *fh, pario_op op, outcome *o) {
  int rc = 0;
  pario_xfer_fn xfer = pario_file_xfer_fn(fh);
  const uint64_t *off = op == PARIO_OP_WRITE ? c->off : c->roff;
  pario_dir dir = op == PARIO_OP_WRITE ? PARIO_WRITE : PARIO_READ;
  uint64_t i, n = c->n, call = c->call, slots = c->slots;
  if (op == PARIO_OP_VERIFY) {
    for (i = 0; i < n; i++) {
      memset(c->scratch, POISON, call);
      int r = xfer(fh, dir, c->scratch, call, off[i]);
      int rf = flush(fh); /* even after an error: a collective flush needs every member */
      if (!r) r = rf;
      if (r && !rc) rc = r;
      if (rc && !fh->collective) break;
      if (!r) check_chunk(c, c->rwriter, i % slots, c->scratch, off[i], o);
      pario_status_xfer((i + 1) * call);
    }
  } else if (op == PARIO_OP_READ && c->expect) {
    /* checked reads: a non-blocking layer completes the window's reads (timed) before the check */
    for (i = 0; i < n && (!rc || fh->collective) && !stonewall(c, fh, dir, o); i++) {
      int r = xfer(fh, dir, c->ring + (i % slots) * call, call, off[i]);
      if (r && !rc) rc = r;
      if (window_ends(c, i)) {
        int rf = flush(fh); /* every member, even after an error: a collective flush needs them all */
        if (rf && !rc) rc = rf;
        if (!rc) check_window(c, i, o);
      }
      pario_status_xfer((i + 1) * call);
    }
    if (o->stonewalled && i > 0 && !window_ends(c, i - 1)) { /* the window the deadline cut short */
      int rf = flush(fh);
      if (rf && !rc) rc = rf;
      if (!rc) check_window(c, i - 1, o);
    }
  } else if (fh->collective) {
    /* keep calling after an error: the other members are inside the same collective */
    for (i = 0; i < n && !stonewall(c, fh, dir, o); i++) {
      int r = put(c, xfer, fh, dir, c->ring + (i % slots) * call, off[i], o);
      if (r && !rc) rc = r;
      pario_status_xfer((i + 1) * call);
    }
  } else {
    for (i = 0; i < n && !rc && !stonewall(c, fh, dir, o); i++) {
      rc = put(c, xfer, fh, dir, c->ring + (i % slots) * call, off[i], o);
      pario_status_xfer((i + 1) * call);
    }
  }
  if (op != PARIO_OP_VERIFY) {
    int r = flush(fh); /* collective layers: every member flushes, even after an error */
    if (r && !rc) rc = r;
  }
  o->ops += i;
  o->bytes += i * call;
  return rc;
}

/* After a write the library called successful, the file must hold what was written: Open MPI's
 * ompio returns MPI_SUCCESS and a count of 0 when the disk is full, and PnetCDF passes that on
 * as success. The file's first member checks its size once every member has closed it (untimed;
 * not for directories, ADIOS2): before that, a rank that finished first sees others' parts
 * missing. Every member calls this (the barrier). */
static void written_whole(const pario_ctx *c, outcome *o) {
  struct stat st;
  if ((c->be->caps & PARIO_CAP_NODATA) || c->be->remove) return;
  MPI_Barrier(c->g.comm);
  /* a file left open after an agreed failure (pario_backend_left_open) was emptied: not news */
  if (o->rc || c->g.member != 0 || pario_backend_open_left()) return;
  if (stat(c->wpath, &st) || (uint64_t)st.st_size >= c->geom.file_bytes) return;
  o->rc = pario_err(PARIO_E_SHORT, "%s: %llu bytes after the write, %llu expected: the library said the write succeeded, "
                    "but data is missing", c->wpath, (unsigned long long)st.st_size,
                    (unsigned long long)c->geom.file_bytes);
  o->rc = pario_err_space(o->rc, c->wpath, 0);
}

/* IOR's -D: what the deadline left. Every rank learns the fewest and the most calls any rank
 * made; with IOR's wear-out (wearout) each rank then goes on to the most, so that every rank's
 * part holds the same count and a later read finds data (its reads are not checked: a window
 * can start before the deadline). c->written_n: how far reads after this write go. Every rank
 * calls this (allreduce over the world, as every rank takes part in every phase). */
static int wear_out(pario_ctx *c, pario_file *fh, pario_op op, outcome *o, int rc) {
  if (c->stop_at <= 0) return rc;
  uint64_t mine = o->ops, v[2] = {mine, UINT64_MAX - mine};
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  uint64_t most = v[0], least = UINT64_MAX - v[1];
  if (op == PARIO_OP_WRITE) c->written_n = c->cs->wearout ? most : least;
  if (!c->cs->wearout || !fh || (rc && !fh->collective)) return rc;
  pario_xfer_fn xfer = pario_file_xfer_fn(fh);
  pario_dir dir = op == PARIO_OP_WRITE ? PARIO_WRITE : PARIO_READ;
  const uint64_t *off = op == PARIO_OP_WRITE ? c->off : c->roff;
  for (uint64_t i = mine; i < most; i++) { /* the members of a collective file are at the same count */
    int r = put(c, xfer, fh, dir, c->ring + (i % c->slots) * c->call, off[i], o);
    if (r && !rc) rc = r;
    if (rc && !fh->collective) break;
    o->ops++;
    o->bytes += c->call;
    pario_status_xfer(o->bytes);
  }
  int r = flush(fh);
  return rc ? rc : r;
}

/* The layout the file system gave a file, in its own words, and how it was read (NULL: none to
 * read). CephFS: the virtual attribute ceph.file.layout ("stripe_unit=... stripe_count=...
 * object_size=... pool=..."); what the MPI-IO layer reports of its striping hints is another thing. */
static const char *fs_layout(const char *path, char *out, size_t len) {
  ssize_t n = getxattr(path, "ceph.file.layout", out, len - 1);
  if (n <= 0) return NULL;
  out[n] = 0;
  for (char *p = out; *p; p++)
    if (*p == '"' || *p == '\\' || (unsigned char)*p < 32) *p = ' ';
  return "getxattr ceph.file.layout";
}

/* rec: where rank 0 records the effective settings of its file (first write only), or NULL. */
static void run_phase(pario_ctx *c, pario_op op, int rep, outcome *o, pario_case_rec *rec) {
  memset(o, 0, sizeof *o);
  const pario_case *cs = c->cs;
  int io = pario_ctx_io_rank(c);
  if (op == PARIO_OP_WRITE)
    for (uint64_t j = 0; j < c->slots; j++)
      pario_data_fill(cs->pat.seed, c->w->rank, j * (c->call / 8), (uint64_t *)(c->ring + j * c->call), c->call / 8);
  else if (op == PARIO_OP_READ)
    memset(c->ring, POISON, c->slots * c->call);
  if (c->w->rank == 0) { /* before the open: what an MPI-IO layer prints at open belongs to it */
    char line[160];
    snprintf(line, sizeof line, "{\"event\":\"open\",\"case\":%d,\"op\":\"%s\",\"rep\":%d}", c->ci, opname(op), rep);
    pario_progress(line);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  pario_status_calls(c->call);
  pario_status(c->ci, opname(op), rep, "open");
  pario_file *fh = NULL;
  o->t[8] = pario_fsbytes_arm(op == PARIO_OP_WRITE ? c->wpath : c->rpath);
  o->t[0] = pario_t();
  if (io) o->rc = pario_ctx_open(c, op == PARIO_OP_WRITE ? PARIO_WRITE : PARIO_READ, &fh);
  o->t[1] = pario_t();
  pario_fault_point(c->w->rank, op == PARIO_OP_WRITE, rep >= 0);
  pario_status(c->ci, opname(op), rep, "xfer");
  int rc = 0, saved_errno = o->rc ? errno : 0; /* what the failing call left: ENOSPC names a full disk */
  /* IOR's -D from the end of the open; timed phases only; reads after a stonewalled write read
     only the calls it left (c->n for this phase) */
  c->stop_at = c->cs->deadline_us && rep >= 0 && op != PARIO_OP_VERIFY ? o->t[1] + (double)cs->deadline_us * 1e-6 : 0;
  uint64_t full_n = c->n;
  if (op != PARIO_OP_WRITE && c->written_n < c->n) c->n = c->written_n;
  if (c->g.aggregate) rc = loop_aggregate(c, o->rc ? NULL : fh, op, o);
  else if (!o->rc) rc = loop_direct(c, fh, op, o);
  rc = wear_out(c, o->rc ? NULL : fh, op, o, rc);
  c->n = full_n;
  o->t[2] = pario_t() - o->check_s; /* checking is not I/O: each later stamp leaves it out */
  if (rc && !o->rc) saved_errno = errno;
  if (!o->rc) o->rc = rc;
  pario_status_total(o->bytes);
  if (io && fh && op == PARIO_OP_WRITE && cs->fsync) {
    pario_status(c->ci, opname(op), rep, "sync");
    rc = pario_file_sync(fh);
    if (rc && !o->rc) saved_errno = errno;
    if (!o->rc) o->rc = rc;
  }
  o->t[3] = pario_t() - o->check_s;
  pario_status(c->ci, opname(op), rep, "close");
  /* after the transfers, so that layers can report what they did (HDF5's actual I/O mode);
     microseconds, once per case, counted as close */
  if (rec && fh && !o->rc) rec->have_effective = !pario_file_info(fh, &rec->effective);
  if (rec && fh && !o->rc) rec->have_lib_effective = !pario_file_lib_info(fh, &rec->lib_effective);
  if (rec && fh && !o->rc) rec->fs_layout_means = fs_layout(c->wpath, rec->fs_layout, sizeof rec->fs_layout);
  if (io && fh) {
    rc = pario_file_close(fh);
    if (rc && !o->rc) saved_errno = errno;
    if (!o->rc) o->rc = rc;
  }
  o->t[4] = pario_t() - o->check_s;
  uint64_t fs_w, fs_r;
  pario_fsbytes_disarm(&fs_w, &fs_r);
  o->t[6] = (double)fs_w;
  o->t[7] = (double)fs_r;
  pario_status(c->ci, opname(op), rep, "done");
  if (op == PARIO_OP_WRITE && c->written_n == c->n) written_whole(c, o); /* the same on every rank */
  /* a library's own words for a full disk vary (a short count, "no details from HDF5", "NetCDF:
     HDF error", "Unknown error in file operation"): name the cause where it is one */
  if (op == PARIO_OP_WRITE && o->rc && o->rc != PARIO_E_NOSPACE) o->rc = pario_err_space(o->rc, c->wpath, saved_errno);
  if (o->errors) o->bad_file = (uint64_t)(op == PARIO_OP_WRITE ? c->g.file_index : c->rfile);
  o->t[5] = (double)o->bytes;
}

/* Remove this case's files: the first member of each file group removes it. Between
 * repetitions, files the front end created with a layout are emptied instead, so that every
 * repetition writes into the requested layout (striping is fixed when a file is created). */
static void remove_files(const pario_ctx *c, int last) {
  MPI_Barrier(MPI_COMM_WORLD);
  int keep_layout = c->cs->precreated && !last;
  /* -E: a file that was there before this case is never removed */
  if (c->g.member == 0 && !c->existed && (keep_layout ? truncate(c->wpath, 0) : pario_ctx_remove(c)) &&
      pario_ctx_io_rank(c))
    pario_log(PARIO_LOG_WARN, "could not %s %s", keep_layout ? "empty" : "remove", c->wpath);
  MPI_Barrier(MPI_COMM_WORLD);
}

static void describe(const pario_ctx *c, pario_case_rec *rec) {
  rec->files = c->g.nfiles;
  rec->file_bytes = c->geom.file_bytes;
  rec->bytes_per_rank = c->geom.member_bytes; /* btio: rank 0's; its members differ */
  rec->total_bytes = c->cs->pat.kind == PARIO_BTIO ? c->geom.file_bytes
                                                   : rec->bytes_per_rank * (uint64_t)c->w->nranks;
  rec->ops_per_rank = c->n;
  rec->call_bytes = c->call;
  rec->reorder_shift = c->shift;
  rec->verify_exact = c->slots >= c->n;
  memcpy(rec->grid, c->geom.grid, sizeof rec->grid);
}

/* IOR's -T (maxTimeDuration): may no further repetition start? Rank 0's clock decides for all. */
static int time_is_up(const pario_case *cs, double t0, const pario_world *w) {
  int up = cs->max_time_ms && w->rank == 0 && pario_t() - t0 >= (double)cs->max_time_ms * 1e-3;
  if (cs->max_time_ms) MPI_Bcast(&up, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return up;
}

int pario_data_run(const pario_run *run, int ci, const pario_world *w, pario_case_rec *rec, pario_hooks *h) {
  pario_ctx c;
  int rc = pario_agree(pario_ctx_init(&c, run, ci, w), w);
  const pario_case *cs = &run->cases[ci];
  int writes = 0;
  for (int k = 0; k < cs->nops; k++) writes |= cs->ops[k] == PARIO_OP_WRITE;
  if (!rc) describe(&c, rec);
  c.written_n = c.n;
  /* -E: the first member of each file notes whether its file is there before the case */
  c.existed = !rc && cs->use_existing && c.g.member == 0 && access(c.wpath, F_OK) == 0;
  double t0 = pario_t();
  if (!rc && !writes && !cs->reuse) { /* read or verify only: lay the files down once, untimed */
    outcome o;
    run_phase(&c, PARIO_OP_WRITE, -1, &o, NULL);
    rc = pario_agree(o.rc, w);
  }
  for (int rep = 0; rep < cs->reps && !rc; rep++) {
    for (int k = 0; k < cs->nops && !rc; k++) {
      outcome o;
      pario_cache_fig fig, *cache = NULL;
      if (cs->ops[k] != PARIO_OP_WRITE && (cs->evict || cs->residency)) { /* untimed, before the phase */
        rc = pario_cache_step(run, ci, c.g.nfiles, w, &fig);
        if (rc) break;
        cache = &fig;
      }
      int first_write = w->rank == 0 && cs->ops[k] == PARIO_OP_WRITE && !rec->have_effective;
      run_phase(&c, cs->ops[k], rep, &o, first_write ? rec : NULL);
      if (first_write) rec->have_effective = 1;
      rc = pario_agree(o.rc, w);
      if (rc) break;
      pario_phase_finish(w, ci, cs, cs->ops[k], rep, &o, cache, rec, h);
    }
    int stop = !rc && rep < cs->reps - 1 && time_is_up(cs, t0, w), last = rep == cs->reps - 1 || stop;
    if (!rc) rec->reps_run = rep + 1, rec->time_up = stop;
    /* -E: like IOR, the file stays between repetitions (each writes into it again) */
    if (!rc && writes && (last ? !cs->keep : !cs->use_existing)) remove_files(&c, last);
    if (stop) break;
  }
  /* files of an earlier run (reuse) stay; the front end removes a failed run's files too */
  if (!cs->keep && !cs->reuse && (rc == 0 ? !writes : 1)) remove_files(&c, 1);
  pario_ctx_free(&c);
  return rc;
}
