/* Shared-file reduction at MPI_Finalize: records of one file from several ranks become one
 * record (rank -1) with the per-rank spread, so the log does not grow with the rank count.
 * A file of a node-local file system (tmpfs, ramfs, /dev/shm) is one file per node under one
 * path: its records are reduced among the ranks of each node, and the record names the node.
 *
 * Any subset of ranks is handled (Darshan only reduces files opened by every rank): each record
 * key goes to an owner rank (hash of the key), which counts how many ranks hold it; keys held by
 * two or more ranks are shared, their records are sent to the owner and reduced there. Every
 * step is one MPI_Alltoall(v), so no rank holds more than its share of the records. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "intercept/intercept.h"
#include "intercept/mpi_weak.h"
#include "profile/profile.h"
#include "profile/reduce_mpi.h"
#include "profile/record_io.h"

WEAK(PMPI_Comm_rank) WEAK(PMPI_Comm_size) WEAK(PMPI_Alltoall) WEAK(PMPI_Alltoallv)

struct key { uint64_t id, module, node; };

#define TMPFS_MAGIC 0x01021994
#define RAMFS_MAGIC 0x858458f6

/* FNV-1a of this process's host name: never 0 (0 means shared) */
static uint64_t host_key(void) {
  uint64_t h = 1469598103934665603ULL;
  for (const char *c = pario_proc.host; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211ULL;
  return h ? h : 1;
}

/* Whether `path` is on a file system of this node alone: /dev/shm, or tmpfs/ramfs (asked of the
 * file, else of its directory: the file may be gone by MPI_Finalize). */
static int node_local(const char *path) {
  if (!strncmp(path, "/dev/shm/", 9)) return 1;
  struct statfs sf;
  char dir[4096];
  if (syscall(SYS_statfs, path, &sf) != 0) {
    size_t n = strlen(path);
    if (n >= sizeof dir) return 0;
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash) return 0;
    slash[slash == dir] = 0;
    if (syscall(SYS_statfs, dir, &sf) != 0) return 0;
  }
  return (unsigned long)sf.f_type == TMPFS_MAGIC || (unsigned long)sf.f_type == RAMFS_MAGIC;
}
struct local { struct pario_rec **v; int n, cap; };

static void collect(struct pario_rec *r, void *arg) {
  struct local *l = arg;
  if (!r->touched || r->moved || r->id == 0) return; /* "<other files>" is per process */
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 64;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
  }
  l->v[l->n++] = r;
}

static int owner(const struct key *k, int size) {
  return (int)((k->id ^ (k->module * 0x9E3779B97F4A7C15ULL) ^ k->node) % (uint64_t)size);
}

/* Exchange variable-size byte blocks; counts/displacements in bytes. Returns the receive buffer. */
static char *exchange(char *send, int *scount, int size, int **rcount_out, int **rdisp_out, int *rtotal) {
  int *sdisp = calloc((size_t)size, sizeof(int)), *rcount = calloc((size_t)size, sizeof(int)),
      *rdisp = calloc((size_t)size, sizeof(int));
  PMPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
  int s = 0, r = 0;
  for (int p = 0; p < size; p++) { sdisp[p] = s; s += scount[p]; rdisp[p] = r; r += rcount[p]; }
  char *recv = malloc((size_t)r + 1);
  PMPI_Alltoallv(send, scount, sdisp, MPI_BYTE, recv, rcount, rdisp, MPI_BYTE, MPI_COMM_WORLD);
  free(sdisp);
  *rcount_out = rcount;
  *rdisp_out = rdisp;
  *rtotal = r;
  return recv;
}

static int cmp_key(const void *a, const void *b) {
  const struct key *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  if (x->module != y->module) return x->module < y->module ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_rec(const void *a, const void *b) {
  const struct pario_rec *x = *(struct pario_rec *const *)a, *y = *(struct pario_rec *const *)b;
  struct key kx = {x->id, (uint64_t)x->module, x->node_key}, ky = {y->id, (uint64_t)y->module, y->node_key};
  int c = cmp_key(&kx, &ky);
  return c ? c : (x->rank > y->rank) - (x->rank < y->rank);
}

static void merge_top(struct pario_top *dst, int64_t *dother, const struct pario_top *src, int64_t sother) {
  *dother += sother;
  for (int k = 0; k < PARIO_TOPN && src[k].cnt; k++) {
    int j;
    for (j = 0; j < PARIO_TOPN && dst[j].cnt; j++)
      if (dst[j].val == src[k].val) break;
    if (j < PARIO_TOPN && dst[j].cnt) dst[j].cnt += src[k].cnt;
    else if (j < PARIO_TOPN) dst[j] = src[k];
    else *dother += src[k].cnt;
  }
}

/* Reduce n snapshots (seconds already) of one file into out. */
static void reduce_group(struct pario_rec **s, int n, struct pario_rec *out) {
  int m = s[0]->module;
  *out = *s[0];
  for (int g = 1; g < n; g++) {
    for (int k = 0; k < pario_num_i(m); k++) {
      int64_t a = out->i[k], b = s[g]->i[k];
      switch (pario_counter_op(m, 0, k)) {
        case PARIO_MERGE_sum: out->i[k] = a + b; break;
        case PARIO_MERGE_max: out->i[k] = a > b ? a : b; break;
        case PARIO_MERGE_min: out->i[k] = !a ? b : (!b ? a : (a < b ? a : b)); break;
        default: break;
      }
    }
    for (int k = 0; k < pario_num_f(m); k++) {
      double a = out->f[k], b = s[g]->f[k];
      switch (pario_counter_op(m, 1, k)) {
        case PARIO_MERGE_sum: out->f[k] = a + b; break;
        case PARIO_MERGE_max: out->f[k] = a > b ? a : b; break;
        case PARIO_MERGE_min: out->f[k] = !a ? b : (!b ? a : (a < b ? a : b)); break;
        default: break;
      }
    }
    merge_top(out->sizes, &out->sizes_other, s[g]->sizes, s[g]->sizes_other);
    merge_top(out->strides, &out->strides_other, s[g]->strides, s[g]->strides_other);
  }
  /* Per-rank spread: each snapshot carries its rank's bytes and time in the FASTEST fields. */
  int base = pario_rank_base[m], fbase = pario_rank_fbase[m];
  int fast = 0, slow = 0;
  double st = 0, st2 = 0, sb = 0, sb2 = 0;
  for (int g = 0; g < n; g++) {
    double t = s[g]->f[fbase], b = (double)s[g]->i[base + 2];
    if (t < s[fast]->f[fbase]) fast = g;
    if (t > s[slow]->f[fbase]) slow = g;
    st += t; st2 += t * t; sb += b; sb2 += b * b;
  }
  out->rank = -1;
  out->i[base] = n;
  out->i[base + 1] = s[fast]->rank; out->i[base + 2] = s[fast]->i[base + 2];
  out->i[base + 3] = s[slow]->rank; out->i[base + 4] = s[slow]->i[base + 2];
  out->f[fbase] = s[fast]->f[fbase];
  out->f[fbase + 1] = s[slow]->f[fbase];
  /* Not fmax(): libm is not linked, and with -fno-plt every symbol must bind at load time. */
  double vt = st2 / n - (st / n) * (st / n), vb = sb2 / n - (sb / n) * (sb / n);
  out->f[fbase + 2] = vt > 0 ? vt : 0.0; /* rounding can make a zero variance slightly negative */
  out->f[fbase + 3] = vb > 0 ? vb : 0.0;
}

/* Wire form of one record: struct, then path and hints (NUL-terminated), padded to 8 bytes. */
static size_t wire_size(const struct pario_rec *r) {
  size_t n = sizeof *r + strlen(r->path) + 1 + (r->hints ? strlen(r->hints) : 0) + 1 + (r->props ? strlen(r->props) : 0) + 1;
  return (n + 7) & ~(size_t)7;
}

void pario_mpi_reduce(void) {
  int rank, size;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) return;
  struct local l = {0};
  pario_records_each(collect, &l);

  /* 1. keys to owners (a node-local file's key names its node) */
  uint64_t here = host_key();
  for (int k = 0; k < l.n; k++) {
    struct pario_rec *r = l.v[k];
    int local = r->path && r->path[0] == '/' && node_local(r->path);
    r->node_key = local ? here : 0;
    if (local) snprintf(r->node, sizeof r->node, "%s", pario_proc.host);
  }
  int *cnt = calloc((size_t)size, sizeof(int));
  struct key *keys = malloc(sizeof *keys * (size_t)(l.n + 1));
  int *order = malloc(sizeof(int) * (size_t)(l.n + 1));
  for (int k = 0; k < l.n; k++) {
    struct key kk = {l.v[k]->id, (uint64_t)l.v[k]->module, l.v[k]->node_key};
    cnt[owner(&kk, size)]++;
  }
  int *pos = calloc((size_t)size, sizeof(int));
  for (int p = 1; p < size; p++) pos[p] = pos[p - 1] + cnt[p - 1];
  for (int k = 0; k < l.n; k++) {
    struct key kk = {l.v[k]->id, (uint64_t)l.v[k]->module, l.v[k]->node_key};
    int slot = pos[owner(&kk, size)]++;
    keys[slot] = kk;
    order[slot] = k;
  }
  int *scount = malloc(sizeof(int) * (size_t)size);
  for (int p = 0; p < size; p++) scount[p] = cnt[p] * (int)sizeof(struct key);
  int *rcount, *rdisp, rtotal;
  struct key *rk = (struct key *)exchange((char *)keys, scount, size, &rcount, &rdisp, &rtotal);
  int nr = rtotal / (int)sizeof(struct key);

  /* 2. owner: keys seen from two or more ranks are shared; answer one flag per key */
  struct key *sorted = malloc(sizeof *sorted * (size_t)(nr + 1));
  memcpy(sorted, rk, sizeof *sorted * (size_t)nr);
  qsort(sorted, (size_t)nr, sizeof *sorted, cmp_key);
  char *flags = malloc((size_t)nr + 1);
  for (int k = 0; k < nr; k++) {
    struct key *hit = bsearch(&rk[k], sorted, (size_t)nr, sizeof *sorted, cmp_key);
    int lo = (int)(hit - sorted), hi = lo;
    while (lo > 0 && !cmp_key(&sorted[lo - 1], &rk[k])) lo--;
    while (hi + 1 < nr && !cmp_key(&sorted[hi + 1], &rk[k])) hi++;
    flags[k] = hi > lo;
  }
  int *fcount = malloc(sizeof(int) * (size_t)size), *frc, *frd, ftotal;
  for (int p = 0; p < size; p++) fcount[p] = rcount[p] / (int)sizeof(struct key);
  char *myflags = exchange(flags, fcount, size, &frc, &frd, &ftotal);

  /* 3. shared records to their owners */
  size_t bytes = 0;
  for (int k = 0; k < l.n; k++)
    if (myflags[k]) bytes += wire_size(l.v[order[k]]);
  char *out = malloc(bytes + 1), *w = out;
  int *bcount = calloc((size_t)size, sizeof(int));
  for (int p = 0, k = 0; p < size; p++)
    for (int j = 0; j < cnt[p]; j++, k++) {
      if (!myflags[k]) continue;
      struct pario_rec *r = l.v[order[k]], snap;
      pario_rec_snapshot(r, &snap, 0);
      size_t ws = wire_size(&snap);
      memset(w, 0, ws);
      memcpy(w, &snap, sizeof snap);
      strcpy(w + sizeof snap, snap.path);
      char *hints_at = w + sizeof snap + strlen(snap.path) + 1;
      if (snap.hints) strcpy(hints_at, snap.hints);
      if (snap.props) strcpy(hints_at + strlen(hints_at) + 1, snap.props);
      w += ws;
      bcount[p] += (int)ws;
      r->moved = 1;
    }
  int *brc, *brd, btotal;
  char *in = exchange(out, bcount, size, &brc, &brd, &btotal);

  /* 4. owner reduces each group (records arrive grouped by sender; group by key here) */
  int nin = 0;
  for (char *p = in; p < in + btotal; p += wire_size((struct pario_rec *)p)) {
    struct pario_rec *r = (struct pario_rec *)p;
    r->path = p + sizeof *r;
    r->hints = r->path + strlen(r->path) + 1;
    r->props = r->hints + strlen(r->hints) + 1;
    if (!*r->hints) r->hints = NULL;
    if (!*r->props) r->props = NULL;
    nin++;
  }
  struct pario_rec **grp = malloc(sizeof *grp * (size_t)(nin + 1));
  nin = 0;
  for (char *p = in; p < in + btotal; p += wire_size((struct pario_rec *)p)) grp[nin++] = (struct pario_rec *)p;
  qsort(grp, (size_t)nin, sizeof *grp, cmp_rec);
  for (int a = 0; a < nin;) {
    int b = a + 1;
    while (b < nin && grp[b]->id == grp[a]->id && grp[b]->module == grp[a]->module &&
           grp[b]->node_key == grp[a]->node_key)
      b++;
    struct pario_rec *red = malloc(sizeof *red);
    reduce_group(grp + a, b - a, red);
    red->path = strdup(grp[a]->path);
    red->hints = grp[a]->hints ? strdup(grp[a]->hints) : NULL;
    red->props = grp[a]->props ? strdup(grp[a]->props) : NULL;
    pario_records_add_reduced(red);
    a = b;
  }
  free(grp); free(in); free(brc); free(brd); free(out); free(bcount); free(myflags); free(frc); free(frd);
  free(fcount); free(flags); free(sorted); free(rk); free(rcount); free(rdisp); free(scount); free(pos);
  free(order); free(keys); free(cnt); free(l.v);
}
