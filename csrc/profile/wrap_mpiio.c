/* MPI-IO wrappers through PMPI (MPI_Init and MPI_Finalize are the interposition layer's:
 * intercept/lifecycle_mpi.c).
 *
 * Each call is wrapped under its PMPI_ name and calls the MPI's own through dlsym(RTLD_NEXT); the
 * MPI_ name is an alias of the PMPI_ wrapper. Open MPI's Fortran bindings call the PMPI_ names directly
 * (mpi_file_write_all_ -> PMPI_File_write_all), so a Fortran program's MPI-IO is recorded as a
 * C program's is, each call once (as Darshan wraps both names).
 *
 * libmpi is not linked: every MPI symbol used here is a weak reference, so this library loads
 * in serial programs too, and these wrappers only ever run inside MPI programs.
 * Unlike the POSIX wrappers, the guard is not held across the PMPI call: the POSIX I/O that
 * MPI-IO does underneath is recorded as well, in the POSIX records of the same file. */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "intercept/calls.h"
#include "intercept/mpi_weak.h"
#include "profile/profile.h"

/* the MPI calls these wrappers use without wrapping them (the wrapped ones are defined below) */
WEAK(PMPI_Type_size) WEAK(PMPI_File_get_info)
WEAK(PMPI_Info_get_nkeys) WEAK(PMPI_Info_get_nthkey) WEAK(PMPI_Info_get) WEAK(PMPI_Info_free)
WEAK(PMPI_T_init_thread) WEAK(PMPI_T_cvar_get_num) WEAK(PMPI_T_cvar_get_info) WEAK(PMPI_T_cvar_handle_alloc)
WEAK(PMPI_T_cvar_read) WEAK(PMPI_T_cvar_handle_free) WEAK(PMPI_T_finalize)
#ifdef OPEN_MPI
WEAK(ompi_mpi_char) WEAK(ompi_mpi_info_null)
#endif

/* ---- MPI_File -> record ---- */
#define NFH 1024
static struct { uint64_t key; struct pario_rec *r; } fhmap[NFH];
static pthread_mutex_t fhlock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fkey(MPI_File fh) {
  uint64_t k = 0;
  memcpy(&k, &fh, sizeof fh < sizeof k ? sizeof fh : sizeof k);
  return k;
}
static struct pario_rec *frec(MPI_File fh) {
  uint64_t k = fkey(fh);
  struct pario_rec *r = NULL;
  pthread_mutex_lock(&fhlock);
  for (int n = 0, s = (int)(k % NFH); n < NFH; n++, s = (s + 1) % NFH)
    if (fhmap[s].key == k) { r = fhmap[s].r; break; }
    else if (!fhmap[s].key) break;
  pthread_mutex_unlock(&fhlock);
  return r;
}
static void fset(MPI_File fh, struct pario_rec *r) {
  uint64_t k = fkey(fh);
  pthread_mutex_lock(&fhlock);
  for (int n = 0, s = (int)(k % NFH); n < NFH; n++, s = (s + 1) % NFH)
    if (fhmap[s].key == k || !fhmap[s].key) {
      fhmap[s].key = k;
      fhmap[s].r = r;
      break;
    }
  pthread_mutex_unlock(&fhlock);
}

/* Open MPI's own MPI-IO (OMPIO) reports only the hints the program passed; what it really does
 * is set by MCA variables (aggregators, collective algorithm, ...), read here once through the
 * MPI tool interface and kept as "mca:name=value" items after the hints. */
static const char *mca_settings(void) {
  static char *done;
  static const char *want[] = {"io", "fcoll", "fbtl", "fs", "sharedfp", "io_ompio_", "fcoll_", "fs_lustre_",
                               "io_romio", NULL};
  if (done) return done;
  done = pario_arena_alloc(2048);
  if (!done) return "";
  done[0] = 0;
#ifdef OPEN_MPI
  int prov, num = 0;
  size_t len = 0;
  if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &prov) != MPI_SUCCESS) return done;
  PMPI_T_cvar_get_num(&num);
  for (int k = 0; k < num; k++) {
    char name[256], desc[8];
    int nlen = sizeof name, dlen = sizeof desc, verb, bind, scope, count;
    MPI_Datatype dt;
    MPI_T_enum en;
    if (PMPI_T_cvar_get_info(k, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope) != MPI_SUCCESS) continue;
    int hit = 0;
    for (int w = 0; want[w] && !hit; w++) {
      size_t wl = strlen(want[w]);
      hit = want[w][wl - 1] == '_' ? !strncmp(name, want[w], wl) : !strcmp(name, want[w]);
    }
    size_t nl = strlen(name);
    if (nl > 8 && (!strcmp(name + nl - 8, "_version") || !strcmp(name + nl - 9, "_priority"))) continue;
    if (strstr(name, "verbose") || strstr(name, "timing")) continue; /* not I/O behaviour */
    if (!hit || bind != MPI_T_BIND_NO_OBJECT) continue;
    MPI_T_cvar_handle h;
    if (PMPI_T_cvar_handle_alloc(k, NULL, &h, &count) != MPI_SUCCESS) continue;
    char val[4096] = {0}; /* Open MPI's string variables are 2048 bytes long (count), "io" among them */
    int n = -1;
    if (dt == MPI_CHAR) {
      if (count <= (int)sizeof val && PMPI_T_cvar_read(h, val) == MPI_SUCCESS)
        n = snprintf(done + len, 2048 - len, ";mca:%s=%s", name, val);
    } else if (count == 1 && PMPI_T_cvar_read(h, val) == MPI_SUCCESS) {
      int tsz = 0;
      PMPI_Type_size(dt, &tsz);
      long long v = 0;
      if (tsz == 4) { int32_t x; memcpy(&x, val, 4); v = x; }
      else if (tsz == 8) memcpy(&v, val, 8);
      if (tsz == 4 || tsz == 8) n = snprintf(done + len, 2048 - len, ";mca:%s=%lld", name, v);
    }
    PMPI_T_cvar_handle_free(&h);
    if (n > 0 && (size_t)n < 2048 - len) len += (size_t)n;
  }
  PMPI_T_finalize();
#endif
  (void)want;
  return done;
}

/* "key=value;..." of an info object into buf (each key after `prefix`); returns the new length. */
static size_t info_items(MPI_Info info, const char *prefix, char *buf, size_t len, size_t cap) {
  int nkeys = 0;
  PMPI_Info_get_nkeys(info, &nkeys);
  for (int k = 0; k < nkeys; k++) {
    char key[MPI_MAX_INFO_KEY + 1], val[1024];
    int flag = 0;
    if (PMPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS) continue;
    if (PMPI_Info_get(info, key, (int)sizeof val - 1, val, &flag) != MPI_SUCCESS || !flag) continue;
    int n = snprintf(buf + len, cap - len, "%s%s%s=%s", len ? ";" : "", prefix, key, val);
    if (n < 0 || (size_t)n >= cap - len) break;
    len += (size_t)n;
  }
  return len;
}

/* Effective hints, as the implementation reports them after open/set_view/set_info, then the
 * hints the program asked for as "req:key=value" items (what it passed at open, set_view and
 * set_info, the latest value of each key kept), so that a reader can tell a hint that did not
 * take effect from one that was never asked for. */
static void record_hints(MPI_File fh, struct pario_rec *r, MPI_Info asked) {
  MPI_Info info;
  if (PMPI_File_get_info(fh, &info) != MPI_SUCCESS) return;
  char *buf = pario_arena_alloc(4096);
  if (buf) {
    buf[0] = 0;
    size_t len = info_items(info, "", buf, 0, 4096);
    const char *mca = mca_settings();
    if (*mca) {
      int n = snprintf(buf + len, 4096 - len, "%s", len ? mca : mca + 1);
      if (n > 0 && (size_t)n < 4096 - len) len += (size_t)n;
    }
    size_t before_req = len;
    if (asked != MPI_INFO_NULL) len = info_items(asked, "req:", buf, len, 4096);
    pario_lock(&r->lock);
    /* keep what was asked before (at open) unless asked again now */
    for (const char *p = r->hints ? strstr(r->hints, "req:") : NULL; p; p = strstr(p + 1, ";req:")) {
      if (*p == ';') p++;
      const char *eq = strchr(p, '='), *end = strchr(p, ';');
      size_t item = end ? (size_t)(end - p) : strlen(p);
      if (!eq || (end && eq > end)) continue;
      char key[MPI_MAX_INFO_KEY + 8];
      size_t klen = (size_t)(eq - p);
      if (klen >= sizeof key - 1) continue;
      memcpy(key, p, klen);
      key[klen] = '=';
      key[klen + 1] = 0;
      int again = 0;
      for (const char *q = buf + before_req; (q = strstr(q, key)); q++)
        if (q == buf || q[-1] == ';') { again = 1; break; }
      if (!again && len + item + 2 < 4096) {
        if (len) buf[len++] = ';';
        memcpy(buf + len, p, item);
        len += item;
        buf[len] = 0;
      }
    }
    r->hints = buf;
    pario_unlock(&r->lock);
  }
  PMPI_Info_free(&info);
}

#define ACTIVE() (atomic_load_explicit(&pario_active, memory_order_relaxed) && !pario_guard)

static void mio(MPI_File fh, int kind, int idx, int count, MPI_Datatype dt, const void *buf, int64_t t0, int64_t t1) {
  struct pario_rec *r = frec(fh);
  if (!r) return;
  int tsz = 0;
  PMPI_Type_size(dt, &tsz);
  pario_lock(&r->lock);
  r->i[idx]++;
  pario_unlock(&r->lock);
  pario_rec_io(r, kind, -1, (int64_t)count * tsz, buf, t0, t1, 0);
}

/* ---- open / close / view / info / sync ---- */
int PMPI_File_open(MPI_Comm comm, const char *name, int amode, MPI_Info info, MPI_File *fh) {
  PARIO_MPI_REAL(PMPI_File_open);
  if (!ACTIVE()) return real(comm, name, amode, info, fh);
  int64_t t0 = pario_ticks();
  int ret = real(comm, name, amode, info, fh);
  int64_t t1 = pario_ticks();
  if (ret != MPI_SUCCESS) return ret;
  pario_guard = 1;
  /* ROMIO accepts "ufs:/path" style prefixes naming the file system driver. */
  const char *colon = strchr(name, ':'), *slash = strchr(name, '/');
  if (colon && (!slash || colon < slash) && colon - name > 1) name = colon + 1;
  char abs[PATH_MAX];
  pario_abspath(name, abs, sizeof abs);
  struct pario_rec *r = pario_rec_get(abs, PARIO_MOD_MPIIO);
  if (r) {
    fset(*fh, r);
    pario_rec_open(r, PARIO_MPIIO_OPENS, t0, t1);
    record_hints(*fh, r, info);
  }
  pario_guard = 0;
  return ret;
}

int PMPI_File_close(MPI_File *fh) {
  PARIO_MPI_REAL(PMPI_File_close);
  if (!ACTIVE()) return real(fh);
  struct pario_rec *r = frec(*fh);
  MPI_File old = *fh;
  int64_t t0 = pario_ticks();
  int ret = real(fh);
  int64_t t1 = pario_ticks();
  if (ret == MPI_SUCCESS && r) {
    pario_guard = 1;
    pario_rec_close(r, PARIO_MPIIO_CLOSES, t0, t1);
    fset(old, NULL);
    pario_guard = 0;
  }
  return ret;
}

PARIO_MPI_ALIAS(MPI_File_open)
PARIO_MPI_ALIAS(MPI_File_close)

static void meta(MPI_File fh, int idx, int hints, MPI_Info asked, int64_t t0, int64_t t1) {
  struct pario_rec *r = frec(fh);
  if (!r) return;
  pario_guard = 1;
  pario_rec_meta(r, idx, t0, t1);
  if (hints) record_hints(fh, r, asked);
  pario_guard = 0;
}

#define META_WRAP(fn, idx, hints, asked, params, args)                                   \
  int P##fn params {                                                                     \
    PARIO_MPI_REAL(P##fn);                                                               \
    if (!ACTIVE()) return real args;                                                     \
    int64_t t0 = pario_ticks();                                                          \
    int ret = real args;                                                                 \
    int64_t t1 = pario_ticks();                                                          \
    if (ret == MPI_SUCCESS) meta(fh, idx, hints, asked, t0, t1);                         \
    return ret;                                                                          \
  }                                                                                      \
  PARIO_MPI_ALIAS(fn)
META_WRAP(MPI_File_set_view, PARIO_MPIIO_VIEWS, 1, info,
          (MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft, const char *rep, MPI_Info info),
          (fh, disp, et, ft, rep, info))
META_WRAP(MPI_File_set_info, PARIO_MPIIO_HINTS, 1, info, (MPI_File fh, MPI_Info info), (fh, info))
META_WRAP(MPI_File_sync, PARIO_MPIIO_SYNCS, 0, MPI_INFO_NULL, (MPI_File fh), (fh))

/* ---- data: every form, counted by form ---- */
#define IO_WRAP(fn, kind, idx, params, args)                                             \
  int P##fn params {                                                                     \
    PARIO_MPI_REAL(P##fn);                                                               \
    if (!ACTIVE()) return real args;                                                     \
    int64_t t0 = pario_ticks();                                                          \
    int ret = real args;                                                                 \
    int64_t t1 = pario_ticks();                                                          \
    if (ret == MPI_SUCCESS) { pario_guard = 1; mio(fh, kind, idx, count, dt, buf, t0, t1); pario_guard = 0; } \
    return ret;                                                                          \
  }                                                                                      \
  PARIO_MPI_ALIAS(fn)
#define RD PARIO_KIND_READ
#define WR PARIO_KIND_WRITE
#define RP (MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
#define WP (MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
#define RPA (MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt, MPI_Status *st)
#define WPA (MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt, MPI_Status *st)
#define A (fh, buf, count, dt, st)
#define AA (fh, off, buf, count, dt, st)
IO_WRAP(MPI_File_read, RD, PARIO_MPIIO_INDEP_READS, RP, A)
IO_WRAP(MPI_File_write, WR, PARIO_MPIIO_INDEP_WRITES, WP, A)
IO_WRAP(MPI_File_read_at, RD, PARIO_MPIIO_INDEP_READS, RPA, AA)
IO_WRAP(MPI_File_write_at, WR, PARIO_MPIIO_INDEP_WRITES, WPA, AA)
IO_WRAP(MPI_File_read_all, RD, PARIO_MPIIO_COLL_READS, RP, A)
IO_WRAP(MPI_File_write_all, WR, PARIO_MPIIO_COLL_WRITES, WP, A)
IO_WRAP(MPI_File_read_at_all, RD, PARIO_MPIIO_COLL_READS, RPA, AA)
IO_WRAP(MPI_File_write_at_all, WR, PARIO_MPIIO_COLL_WRITES, WPA, AA)
IO_WRAP(MPI_File_read_shared, RD, PARIO_MPIIO_SHARED_READS, RP, A)
IO_WRAP(MPI_File_write_shared, WR, PARIO_MPIIO_SHARED_WRITES, WP, A)
IO_WRAP(MPI_File_read_ordered, RD, PARIO_MPIIO_COLL_READS, RP, A)
IO_WRAP(MPI_File_write_ordered, WR, PARIO_MPIIO_COLL_WRITES, WP, A)

/* Split collectives: counted (with their bytes) at _begin; the _end calls are not wrapped. */
#define BP (MPI_File fh, void *buf, int count, MPI_Datatype dt)
#define BWP (MPI_File fh, const void *buf, int count, MPI_Datatype dt)
#define BPA (MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt)
#define BWPA (MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt)
IO_WRAP(MPI_File_read_all_begin, RD, PARIO_MPIIO_SPLIT_READS, BP, (fh, buf, count, dt))
IO_WRAP(MPI_File_write_all_begin, WR, PARIO_MPIIO_SPLIT_WRITES, BWP, (fh, buf, count, dt))
IO_WRAP(MPI_File_read_at_all_begin, RD, PARIO_MPIIO_SPLIT_READS, BPA, (fh, off, buf, count, dt))
IO_WRAP(MPI_File_write_at_all_begin, WR, PARIO_MPIIO_SPLIT_WRITES, BWPA, (fh, off, buf, count, dt))
IO_WRAP(MPI_File_read_ordered_begin, RD, PARIO_MPIIO_SPLIT_READS, BP, (fh, buf, count, dt))
IO_WRAP(MPI_File_write_ordered_begin, WR, PARIO_MPIIO_SPLIT_WRITES, BWP, (fh, buf, count, dt))

/* Non-blocking: counted when posted; the time is the posting time. */
#define NP (MPI_File fh, void *buf, int count, MPI_Datatype dt, MPI_Request *rq)
#define NWP (MPI_File fh, const void *buf, int count, MPI_Datatype dt, MPI_Request *rq)
#define NPA (MPI_File fh, MPI_Offset off, void *buf, int count, MPI_Datatype dt, MPI_Request *rq)
#define NWPA (MPI_File fh, MPI_Offset off, const void *buf, int count, MPI_Datatype dt, MPI_Request *rq)
#define N (fh, buf, count, dt, rq)
#define NA (fh, off, buf, count, dt, rq)
IO_WRAP(MPI_File_iread, RD, PARIO_MPIIO_NB_READS, NP, N)
IO_WRAP(MPI_File_iwrite, WR, PARIO_MPIIO_NB_WRITES, NWP, N)
IO_WRAP(MPI_File_iread_at, RD, PARIO_MPIIO_NB_READS, NPA, NA)
IO_WRAP(MPI_File_iwrite_at, WR, PARIO_MPIIO_NB_WRITES, NWPA, NA)
IO_WRAP(MPI_File_iread_all, RD, PARIO_MPIIO_NB_READS, NP, N)
IO_WRAP(MPI_File_iwrite_all, WR, PARIO_MPIIO_NB_WRITES, NWP, N)
IO_WRAP(MPI_File_iread_at_all, RD, PARIO_MPIIO_NB_READS, NPA, NA)
IO_WRAP(MPI_File_iwrite_at_all, WR, PARIO_MPIIO_NB_WRITES, NWPA, NA)
IO_WRAP(MPI_File_iread_shared, RD, PARIO_MPIIO_NB_READS, NP, N)
IO_WRAP(MPI_File_iwrite_shared, WR, PARIO_MPIIO_NB_WRITES, NWP, N)
