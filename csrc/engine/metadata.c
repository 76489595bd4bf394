/* The metadata workload (mdtest-like): many small files in a directory tree, one shared tree or
 * one per rank. Timed phases create, stat, open_close, read_small and remove, each like a data
 * phase: barrier, per-rank loop, one reduction (ops per second = ops / xfer_s).
 *
 * Tree: ROOT = DIR/PREFIX.CASE.md (the run's unique prefix); per rank ROOT/rR when not shared;
 * then `depth` levels of `branching` directories d0..d(B-1); each leaf holds files_per_dir files
 * f.G, G the file's index in the tree. Shared: rank r owns G = r, r + n, r + 2n, ...
 * Every file the workload creates is removed in the same repetition, and the tree afterwards;
 * the counts are recorded, and anything left behind is reported as an error. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "engine/fault.h"
#include "engine/metadata.h"
#include "engine/reduce.h"
#include "engine/status.h"
#include "engine/timing.h"
#include "pario/errors.h"
#include "pario/pattern.h"

typedef struct {
  const pario_case *cs;
  const pario_world *w;
  char root[4400];  /* ROOT, or ROOT/rR */
  char top[4380];   /* ROOT */
  uint64_t leaves, nfiles; /* leaves of the tree; files in the tree */
  uint64_t first, stride;  /* this rank's files: G = first + k * stride < nfiles */
  uint64_t mine;           /* how many */
  uint64_t created;        /* files of this repetition that exist (a prefix of the rank's list) */
  uint64_t tot_created, tot_removed;
  uint64_t *buf, *expect;  /* file content (word 0 = G, so that a misplaced file is detected) */
  uint64_t words;
  int made_root, made_top, owned_top; /* this rank created ROOT / the per-rank parent: only then removes it */
} md_ctx;

static void dir_of(const md_ctx *m, uint64_t leaf, char *out, size_t len) {
  int n = snprintf(out, len, "%s", m->root);
  uint64_t div = m->leaves;
  for (int d = 0; d < m->cs->md.depth; d++) {
    div /= (uint64_t)m->cs->md.branching;
    n += snprintf(out + n, len - (size_t)n, "/d%llu", (unsigned long long)((leaf / div) % (uint64_t)m->cs->md.branching));
  }
}

static void file_of(const md_ctx *m, uint64_t g, char *out, size_t len) {
  dir_of(m, g / m->cs->md.files_per_dir, out, len);
  size_t n = strlen(out);
  snprintf(out + n, len - n, "/f.%llu", (unsigned long long)g);
}

static int sys_fail(const char *what, const char *path) {
  int e = errno;
  return pario_err(pario_err_from_errno(e), "%s %s: %s", what, path, strerror(e));
}

/* The case's extended attribute on the tree's top directory, just made (a layout its files inherit). */
static int set_top_xattr(const md_ctx *m) {
  const char *spec = m->cs->md.top_xattr, *eq = strchr(spec, '=');
  if (!spec[0]) return 0;
  char name[256];
  size_t n = eq ? (size_t)(eq - spec) : 0;
  if (!eq || n == 0 || n >= sizeof name)
    return pario_err(PARIO_E_SPEC, "case %s: top_xattr must be NAME=VALUE", m->cs->name);
  memcpy(name, spec, n);
  name[n] = 0;
  if (setxattr(m->top, name, eq + 1, strlen(eq + 1), 0)) return sys_fail("setxattr", m->top);
  return 0;
}

/* What the top directory holds of that attribute once made, as the file system reports it. */
static void read_top_xattr(const md_ctx *m, pario_case_rec *rec) {
  const char *spec = m->cs->md.top_xattr, *eq = strchr(spec, '=');
  char name[256];
  size_t n = eq ? (size_t)(eq - spec) : 0;
  if (!n || n >= sizeof name) return;
  memcpy(name, spec, n);
  name[n] = 0;
  ssize_t got = getxattr(m->top, name, rec->fs_layout, sizeof rec->fs_layout - 1);
  if (got <= 0) return;
  rec->fs_layout[got] = 0;
  for (char *p = rec->fs_layout; *p; p++)
    if (*p == '"' || *p == '\\' || (unsigned char)*p < 32) *p = ' ';
  rec->fs_layout_means = "getxattr of the tree's top directory";
}

/* Directories of one tree at `level` (0 = the root), visited in order; mkdir or rmdir. */
static int walk_dirs(md_ctx *m, int make, uint64_t *count) {
  char path[4600];
  int rc = 0, B = m->cs->md.branching;
  if (make && mkdir(m->root, 0755)) return sys_fail("mkdir", m->root); /* never reuse what exists */
  if (make) m->made_root = 1, m->owned_top |= m->cs->md.shared_dir, ++*count;
  if (make && m->cs->md.shared_dir && (rc = set_top_xattr(m))) return rc;
  if (!make && !m->made_root) return 0;
  for (int lv = make ? 1 : m->cs->md.depth; make ? lv <= m->cs->md.depth : lv >= 1; lv += make ? 1 : -1) {
    uint64_t ndirs = 1;
    for (int d = 0; d < lv; d++) ndirs *= (uint64_t)B;
    for (uint64_t k = 0; k < ndirs && (!rc || !make); k++) { /* removal tries every directory */
      int n = snprintf(path, sizeof path, "%s", m->root);
      uint64_t div = ndirs;
      for (int d = 0; d < lv; d++) {
        div /= (uint64_t)B;
        n += snprintf(path + n, sizeof path - (size_t)n, "/d%llu", (unsigned long long)((k / div) % (uint64_t)B));
      }
      if (!(make ? mkdir(path, 0755) : rmdir(path))) ++*count;
      else if ((make || errno != ENOENT) && !rc) rc = sys_fail(make ? "mkdir" : "rmdir", path);
    }
  }
  if (!make && rmdir(m->root) && !rc) rc = sys_fail("rmdir", m->root);
  if (!make) m->made_root = 0;
  return rc;
}

/* One pass over this rank's files: timed (rep >= 0), or the untimed create or remove around the
 * timed phases (rep -1). The status file says where the rank is (schemas/README.md). */
static void md_phase(md_ctx *m, int ci, int rep, pario_op op, pario_outcome *o) {
  char path[4600];
  uint64_t size = m->cs->md.file_size, n = op == PARIO_OP_CREATE ? m->mine : m->created;
  memset(o, 0, sizeof *o);
  MPI_Barrier(MPI_COMM_WORLD);
  pario_status(ci, pario_op_name(op), rep, "xfer");
  pario_fault_point(m->w->rank, op == PARIO_OP_CREATE, rep >= 0);
  o->t[0] = o->t[1] = pario_t();
  uint64_t k;
  for (k = 0; k < n && !o->rc; k++) {
    uint64_t g = m->first + k * m->stride;
    file_of(m, g, path, sizeof path);
    int fd;
    struct stat st;
    switch (op) {
      case PARIO_OP_CREATE:
        if ((fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644)) < 0) {
          o->rc = sys_fail("create", path);
          break;
        }
        m->buf[0] = g;
        if (size && write(fd, m->buf, size) != (ssize_t)size) o->rc = sys_fail("write", path);
        if (close(fd) && !o->rc) o->rc = sys_fail("close", path);
        m->created++;
        m->tot_created++;
        o->bytes += size;
        break;
      case PARIO_OP_STAT:
        if (stat(path, &st)) o->rc = sys_fail("stat", path);
        else if ((uint64_t)st.st_size != size)
          o->rc = pario_err(PARIO_E_SHORT, "stat %s: size %lld, expected %llu", path, (long long)st.st_size,
                            (unsigned long long)size);
        break;
      case PARIO_OP_OPEN:
        if ((fd = open(path, O_RDONLY)) < 0) o->rc = sys_fail("open", path);
        else if (close(fd)) o->rc = sys_fail("close", path);
        break;
      case PARIO_OP_READSMALL: {
        if ((fd = open(path, O_RDONLY)) < 0) {
          o->rc = sys_fail("open", path);
          break;
        }
        ssize_t got = size ? read(fd, m->buf, size) : 0;
        if (got < 0) o->rc = sys_fail("read", path);
        else if ((uint64_t)got != size)
          o->rc = pario_err(PARIO_E_SHORT, "read %s: %lld of %llu bytes", path, (long long)got, (unsigned long long)size);
        close(fd);
        if (o->rc) break;
        o->bytes += size;
        o->checked += size;
        m->expect[0] = g;
        if (size && memcmp(m->buf, m->expect, size)) {
          uint64_t bad = 0, first = UINT64_MAX;
          for (uint64_t w = 0; w * 8 < size; w++) /* a partial last word compares its bytes only */
            if (memcmp(m->buf + w, m->expect + w, size - w * 8 < 8 ? size - w * 8 : 8)) {
              if (first == UINT64_MAX) first = w;
              bad++;
            }
          if (!o->errors) {
            o->bad_off = first * 8;
            o->bad_exp = m->expect[first];
            o->bad_got = m->buf[first];
            o->bad_file = g;
          }
          o->errors += bad;
        }
        break;
      }
      case PARIO_OP_REMOVE:
        if (unlink(path)) {
          o->rc = sys_fail("unlink", path);
          break;
        }
        m->tot_removed++;
        break;
      default:
        break;
    }
  }
  o->ops = k;
  o->t[2] = o->t[3] = o->t[4] = pario_t();
  o->t[5] = (double)o->bytes;
  pario_status(ci, pario_op_name(op), rep, "done");
  if (op == PARIO_OP_REMOVE && !o->rc) m->created = 0;
}

/* Remove whatever this repetition created and is still there, then the tree (never fails the
 * cleanup half-way: every step is tried). Returns the first error. */
static int md_cleanup(md_ctx *m, uint64_t *dirs_removed) {
  char path[4600];
  int rc = 0;
  for (uint64_t k = 0; k < m->created; k++) {
    file_of(m, m->first + k * m->stride, path, sizeof path);
    if (!unlink(path)) m->tot_removed++;
    else if (errno != ENOENT && !rc) rc = sys_fail("unlink", path);
  }
  m->created = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (!m->cs->md.shared_dir || m->w->rank == 0) {
    int r = walk_dirs(m, 0, dirs_removed);
    if (r && !rc) rc = r;
  }
  if (!m->cs->md.shared_dir) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (m->made_top && rmdir(m->top) && !rc) rc = sys_fail("rmdir", m->top);
    m->made_top = 0;
  }
  return rc;
}

/* Entries left under path (recursively), for the report when a cleanup failed. */
static uint64_t count_left(const char *path) {
  DIR *d = opendir(path);
  if (!d) return 0;
  uint64_t n = 0;
  struct dirent *e;
  char sub[4600];
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    n += 1 + count_left(sub);
  }
  closedir(d);
  return n;
}

static int md_setup(md_ctx *m, const pario_run *run, int ci, const pario_world *w) {
  const pario_md *md = &m->cs->md;
  m->w = w;
  snprintf(m->top, sizeof m->top, "%s/%s.%d.md", run->dir, run->prefix, ci);
  if (md->shared_dir) snprintf(m->root, sizeof m->root, "%s", m->top);
  else snprintf(m->root, sizeof m->root, "%s/r%d", m->top, w->rank);
  m->leaves = 1;
  for (int d = 0; d < md->depth; d++) m->leaves *= (uint64_t)md->branching;
  m->nfiles = m->leaves * md->files_per_dir;
  m->first = md->shared_dir ? (uint64_t)w->rank : 0;
  m->stride = md->shared_dir ? (uint64_t)w->nranks : 1;
  m->mine = m->nfiles > m->first ? (m->nfiles - m->first + m->stride - 1) / m->stride : 0;
  m->words = (md->file_size + 7) / 8;
  m->buf = malloc(8 * (m->words ? m->words : 1));
  m->expect = malloc(8 * (m->words ? m->words : 1));
  if (!m->buf || !m->expect) return pario_err(PARIO_E_NOMEM, "case %s: out of memory for file_size", m->cs->name);
  pario_data_fill(m->cs->pat.seed, w->rank, 0, m->expect, m->words);
  memcpy(m->buf, m->expect, 8 * m->words);
  return 0;
}

static int make_tree(md_ctx *m, uint64_t *dirs) {
  int rc = 0;
  if (!m->cs->md.shared_dir) {
    if (m->w->rank == 0 && mkdir(m->top, 0755)) rc = sys_fail("mkdir", m->top);
    else if (m->w->rank == 0) m->made_top = m->owned_top = 1, ++*dirs, rc = set_top_xattr(m);
    if ((rc = pario_agree(rc, m->w))) return rc;
  }
  if (!m->cs->md.shared_dir || m->w->rank == 0) rc = walk_dirs(m, 1, dirs);
  return pario_agree(rc, m->w);
}

int pario_md_run(const pario_run *run, int ci, const pario_world *w, pario_case_rec *rec, pario_hooks *h) {
  const pario_case *cs = &run->cases[ci];
  md_ctx m = {.cs = cs};
  int rc = pario_agree(md_setup(&m, run, ci, w), w);
  int has_create = 0, has_remove = 0;
  for (int k = 0; k < cs->nops; k++) {
    has_create |= cs->ops[k] == PARIO_OP_CREATE;
    has_remove |= cs->ops[k] == PARIO_OP_REMOVE;
  }
  uint64_t dirs_removed = 0, total_files = (uint64_t)(cs->md.shared_dir ? 1 : w->nranks) * m.nfiles;
  rec->files = (int)(total_files > 0x7fffffff ? 0x7fffffff : total_files);
  rec->file_bytes = cs->md.file_size;
  rec->total_bytes = total_files * cs->md.file_size;
  rec->bytes_per_rank = rec->total_bytes / (uint64_t)w->nranks;
  rec->ops_per_rank = m.mine;
  rec->md_files_per_rep = total_files;
  for (int rep = 0; rep < cs->reps && !rc; rep++) {
    pario_outcome o;
    uint64_t d = 0;
    rc = make_tree(&m, &d);
    if (rep == 0) MPI_Reduce(&d, &rec->md_dirs, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rep == 0 && !rc && w->rank == 0) read_top_xattr(&m, rec);
    if (!rc && !has_create) { /* stat/open/read of files that exist: lay them down untimed */
      md_phase(&m, ci, -1, PARIO_OP_CREATE, &o);
      rc = pario_agree(o.rc, w);
    }
    for (int k = 0; k < cs->nops && !rc; k++) {
      md_phase(&m, ci, rep, cs->ops[k], &o);
      rc = pario_agree(o.rc, w);
      if (rc) break;
      pario_phase_finish(w, ci, cs, cs->ops[k], rep, &o, NULL, rec, h);
    }
    if (!rc && !has_remove) {
      md_phase(&m, ci, -1, PARIO_OP_REMOVE, &o);
      rc = pario_agree(o.rc, w);
    }
    int c = pario_agree(md_cleanup(&m, &dirs_removed), w); /* always, also after a failure */
    if (!rc) rc = c;
  }
  uint64_t mine[2] = {m.tot_created, m.tot_removed}, tot[2] = {0, 0};
  MPI_Reduce(mine, tot, 2, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  /* what is under the root this run created (not someone else's file of the same name) */
  uint64_t left = w->rank == 0 && m.owned_top ? count_left(m.top) + (access(m.top, F_OK) == 0) : 0;
  if (w->rank == 0) {
    rec->md_created = tot[0];
    rec->md_removed = tot[1];
    rec->md_left = left;
  }
  MPI_Bcast(&left, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (!rc && (left || (w->rank == 0 && tot[0] != tot[1])))
    rc = pario_err(PARIO_E_IO, "case %s: %llu entries left behind under %s", cs->name, (unsigned long long)left, m.top);
  free(m.buf);
  free(m.expect);
  return pario_agree(rc, w);
}
