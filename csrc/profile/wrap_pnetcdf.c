/* PnetCDF wrappers (issue 29): files (ncmpi_create/open/close, the header and alignment hints in
 * effect, ncmpi_inq_file_info), variables (shape, record or fixed, where they start), every
 * put/get form (var, var1, vara, vars, varm, varn; typed and flexible) as blocking collective,
 * blocking independent, or non-blocking posts (iput, bput, iget), and the waits that complete
 * them (how many requests each ncmpi_wait_all flushed, ncmpi_inq_nreqs).
 *
 * Built with MPI only (the API takes MPI_Comm, MPI_Info, MPI_Datatype). PnetCDF's headers are not
 * needed: its functions are declared below as pnetcdf.h declares them (tests/c checks them against
 * the installed header). Not wrapped: the ncmpi_mput_* forms and ncmpi_put_vard (said in
 * csrc/profile/README.md). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intercept/mpi_weak.h"
#include "profile/libs.h"

WEAK(PMPI_Type_size) WEAK(PMPI_Info_get_nkeys) WEAK(PMPI_Info_get_nthkey) WEAK(PMPI_Info_get) WEAK(PMPI_Info_free)
#ifdef OPEN_MPI
WEAK(ompi_mpi_datatype_null) WEAK(ompi_mpi_info_null)
#endif

#define NC_NOERR 0
#define NC_REQ_ALL (-1)
#define NC_UNLIMITED 0L
#define PN_MAX_DIMS 64

int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp);
int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp);
int ncmpi_close(int ncid);
int ncmpi_enddef(int ncid);
int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree, MPI_Offset r_align);
int ncmpi_redef(int ncid);
int ncmpi_sync(int ncid);
int ncmpi_flush(int ncid);
int ncmpi_begin_indep_data(int ncid);
int ncmpi_wait_all(int ncid, int count, int array_of_requests[], int array_of_statuses[]);
int ncmpi_wait(int ncid, int count, int array_of_requests[], int array_of_statuses[]);
int ncmpi_buffer_attach(int ncid, MPI_Offset bufsize);

/* What the wrappers ask PnetCDF. */
static struct {
  int ok;
  const char *(*libvers)(void);
  int (*inq_file_info)(int, MPI_Info *);
  int (*inq_header_size)(int, MPI_Offset *), (*inq_header_extent)(int, MPI_Offset *);
  int (*inq_varoffset)(int, int, MPI_Offset *);
  int (*inq_var)(int, int, char *, int *, int *, int *, int *);
  int (*inq_dimlen)(int, int, MPI_Offset *);
  int (*inq_unlimdim)(int, int *);
  int (*inq_nreqs)(int, int *);
  int (*inq_path)(int, int *, char *);
} pn;

#define OPT(field, name) pn.field = (__typeof__(pn.field))pario_lib_opt(PARIO_LIB_PNETCDF, name)
static int pn_ready(void) {
  if (pn.ok) return pn.ok > 0;
  OPT(libvers, "ncmpi_inq_libvers"); OPT(inq_file_info, "ncmpi_inq_file_info");
  OPT(inq_header_size, "ncmpi_inq_header_size"); OPT(inq_header_extent, "ncmpi_inq_header_extent");
  OPT(inq_varoffset, "ncmpi_inq_varoffset"); OPT(inq_var, "ncmpi_inq_var"); OPT(inq_dimlen, "ncmpi_inq_dimlen");
  OPT(inq_unlimdim, "ncmpi_inq_unlimdim"); OPT(inq_nreqs, "ncmpi_inq_nreqs"); OPT(inq_path, "ncmpi_inq_path");
  if (pn.libvers) pario_lib_version_word(PARIO_LIB_PNETCDF, pn.libvers()); /* "1.12.3 of March 29, 2022" */
  pn.ok = pn.inq_var && pn.inq_dimlen && pn.inq_unlimdim && pn.inq_path ? 1 : -1;
  return pn.ok > 0;
}

/* A wrapper's head: the real call timed (t0, ret, t1), or passed through. */
#define PN_TIMED(fn, args) \
  PARIO_LIB_TIMED(PARIO_LIB_PNETCDF, fn, args, !PARIO_LIB_ACTIVE() || !pn_ready(), (void)0, (void)0)

static struct pario_hmap files = PARIO_HMAP_INIT; /* ncid -> file record */
static struct pario_hmap vars = PARIO_HMAP_INIT;  /* (ncid, varid) -> variable and file records */
enum { V_NDIMS, V_TYPE_SIZE, V_UNLIM };

static int64_t ext_size(int xtype) {
  static const int64_t sizes[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8}; /* NC_BYTE .. NC_UINT64 */
  return xtype > 0 && xtype < (int)(sizeof sizes / sizeof *sizes) ? sizes[xtype] : 0;
}

/* ---- files ---- */
/* The info object's "key=value" items (each key after `prefix`) appended to buf. */
static size_t info_items(MPI_Info info, const char *prefix, char *buf, size_t len, size_t cap, struct pario_rec *r) {
  int nkeys = 0;
  if (PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS) return len;
  for (int k = 0; k < nkeys; k++) {
    char key[MPI_MAX_INFO_KEY + 1], val[256];
    int flag = 0;
    if (PMPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS) continue;
    if (PMPI_Info_get(info, key, (int)sizeof val - 1, val, &flag) != MPI_SUCCESS || !flag) continue;
    if (r && !*prefix) { /* the alignments in effect, as numbers too */
      long long x = atoll(val);
      if (!strcmp(key, "nc_header_align_size")) r->i[PARIO_PNETCDF_FILE_HEADER_ALIGN] = x;
      else if (!strcmp(key, "nc_var_align_size")) r->i[PARIO_PNETCDF_FILE_VAR_ALIGN] = x;
      else if (!strcmp(key, "nc_record_align_size")) r->i[PARIO_PNETCDF_FILE_RECORD_ALIGN] = x;
    }
    int n = snprintf(buf + len, cap - len, "%s%s%s=%s", len ? ";" : "", prefix, key, val);
    if (n < 0 || (size_t)n >= cap - len) break;
    len += (size_t)n;
  }
  return len;
}

/* The hints in effect (ncmpi_inq_file_info), then what the program passed as "req:" items. */
static void file_hints(struct pario_rec *r, int ncid, MPI_Info asked) {
  MPI_Info used;
  if (!pn.inq_file_info || pn.inq_file_info(ncid, &used) != NC_NOERR) return;
  char buf[4096];
  pario_lock(&r->lock);
  size_t len = info_items(used, "", buf, 0, sizeof buf, r);
  pario_unlock(&r->lock);
  PMPI_Info_free(&used);
  if (asked != MPI_INFO_NULL) len = info_items(asked, "req:", buf, len, sizeof buf, NULL);
  else if (r->hints) { /* keep what was asked at open */
    const char *req = strstr(r->hints, "req:");
    if (req && len + strlen(req) + 2 < sizeof buf) len += (size_t)snprintf(buf + len, sizeof buf - len, ";%s", req);
  }
  char *copy = pario_arena_strdup(buf);
  pario_lock(&r->lock);
  if (copy) r->hints = copy;
  pario_unlock(&r->lock);
}

static void header_facts(struct pario_rec *r, int ncid) {
  MPI_Offset size = 0, extent = 0;
  if (pn.inq_header_size && pn.inq_header_size(ncid, &size) == NC_NOERR) pario_rec_max(r, PARIO_PNETCDF_FILE_HEADER_SIZE, size);
  if (pn.inq_header_extent && pn.inq_header_extent(ncid, &extent) == NC_NOERR)
    pario_rec_max(r, PARIO_PNETCDF_FILE_HEADER_EXTENT, extent);
}

static struct pario_rec *file_rec(int ncid, const char *path) {
  struct pario_handle h;
  if (pario_hmap_get(&files, (uint64_t)ncid, 0, &h)) return h.file;
  char name[PATH_MAX], abs[PATH_MAX];
  int len = 0;
  if (!path) {
    if (pn.inq_path(ncid, &len, NULL) != NC_NOERR || len <= 0 || len >= (int)sizeof name ||
        pn.inq_path(ncid, NULL, name) != NC_NOERR)
      snprintf(name, sizeof name, "?");
    path = name;
  }
  pario_abspath(path, abs, sizeof abs);
  h = (struct pario_handle){.k1 = (uint64_t)ncid, .file = pario_rec_get(abs, PARIO_MOD_PNETCDF_FILE)};
  if (h.file && pario_hmap_put(&files, &h) != 0) h.file = pario_rec_overflow(PARIO_MOD_PNETCDF_FILE);
  return h.file;
}

#define OPEN_WRAP(fn, idx, mode)                                                                 \
  int fn(MPI_Comm comm, const char *path, int mode, MPI_Info info, int *ncidp) {                 \
    PN_TIMED(fn, (comm, path, mode, info, ncidp));                                                \
    if (ret == NC_NOERR) {                                                                        \
      pario_lib_enter();                                                                          \
      pario_hmap_del(&files, (uint64_t)*ncidp, 0);                                                \
      struct pario_rec *r = file_rec(*ncidp, path);                                               \
      if (r) { pario_rec_open(r, idx, t0, t1); file_hints(r, *ncidp, info); }                     \
      pario_lib_leave();                                                                          \
    }                                                                                             \
    return ret;                                                                                   \
  }
OPEN_WRAP(ncmpi_create, PARIO_PNETCDF_FILE_CREATES, cmode)
OPEN_WRAP(ncmpi_open, PARIO_PNETCDF_FILE_OPENS, omode)

int ncmpi_close(int ncid) {
  PARIO_LIB_REAL(PARIO_LIB_PNETCDF, ncmpi_close);
  if (!real_ncmpi_close) return -1;
  if (!PARIO_LIB_ACTIVE() || pn.ok <= 0) return real_ncmpi_close(ncid);
  pario_lib_enter();
  struct pario_rec *r = file_rec(ncid, NULL);
  if (r) header_facts(r, ncid);
  pario_lib_leave();
  int64_t t0 = pario_ticks();
  int ret = real_ncmpi_close(ncid);
  int64_t t1 = pario_ticks();
  if (ret == NC_NOERR) {
    pario_lib_enter();
    if (r) pario_rec_close(r, PARIO_PNETCDF_FILE_CLOSES, t0, t1);
    pario_hmap_del(&files, (uint64_t)ncid, 0);
    pario_hmap_del_k1(&vars, (uint64_t)ncid);
    pario_lib_leave();
  }
  return ret;
}

/* Calls on the whole file: counted, timed; after an enddef, the header and hints in effect. */
#define FILE_WRAP(fn, idx, facts, params, args)                              \
  int fn params {                                                            \
    PN_TIMED(fn, args);                                                      \
    if (ret == NC_NOERR) {                                                   \
      pario_lib_enter();                                                     \
      struct pario_rec *r = file_rec(ncid, NULL);                            \
      if (r) {                                                               \
        pario_rec_meta(r, idx, t0, t1);                                      \
        if (facts) { header_facts(r, ncid); file_hints(r, ncid, MPI_INFO_NULL); } \
      }                                                                      \
      pario_lib_leave();                                                     \
    }                                                                        \
    return ret;                                                              \
  }
FILE_WRAP(ncmpi_enddef, PARIO_PNETCDF_FILE_ENDDEFS, 1, (int ncid), (ncid))
FILE_WRAP(ncmpi__enddef, PARIO_PNETCDF_FILE_ENDDEFS, 1,
          (int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree, MPI_Offset r_align),
          (ncid, h_minfree, v_align, v_minfree, r_align))
FILE_WRAP(ncmpi_redef, PARIO_PNETCDF_FILE_REDEFS, 0, (int ncid), (ncid))
FILE_WRAP(ncmpi_sync, PARIO_PNETCDF_FILE_SYNCS, 0, (int ncid), (ncid))
FILE_WRAP(ncmpi_flush, PARIO_PNETCDF_FILE_SYNCS, 0, (int ncid), (ncid))
FILE_WRAP(ncmpi_begin_indep_data, PARIO_PNETCDF_FILE_INDEP_BEGINS, 0, (int ncid), (ncid))

int ncmpi_buffer_attach(int ncid, MPI_Offset bufsize) {
  PARIO_LIB_REAL(PARIO_LIB_PNETCDF, ncmpi_buffer_attach);
  if (!real_ncmpi_buffer_attach) return -1;
  int ret = real_ncmpi_buffer_attach(ncid, bufsize);
  if (ret == NC_NOERR && PARIO_LIB_ACTIVE() && pn_ready()) {
    pario_lib_enter();
    pario_rec_max(file_rec(ncid, NULL), PARIO_PNETCDF_FILE_BUFFER_SIZE, bufsize);
    pario_lib_leave();
  }
  return ret;
}

/* The waits: how many requests each completed (all pending ones for NC_REQ_ALL and the other
 * negative counts: ncmpi_inq_nreqs before the wait). */
#define WAIT_WRAP(fn)                                                                            \
  int fn(int ncid, int count, int reqs[], int statuses[]) {                                      \
    PARIO_LIB_REAL(PARIO_LIB_PNETCDF, fn);                                                        \
    if (!real_##fn) return -1;                                                                    \
    if (!PARIO_LIB_ACTIVE() || !pn_ready()) return real_##fn(ncid, count, reqs, statuses);       \
    int n = count;                                                                                \
    if (count < 0 && (!pn.inq_nreqs || pn.inq_nreqs(ncid, &n) != NC_NOERR)) n = 0;                \
    int64_t t0 = pario_ticks();                                                                   \
    int ret = real_##fn(ncid, count, reqs, statuses);                                             \
    int64_t t1 = pario_ticks();                                                                   \
    pario_lib_enter();                                                                            \
    struct pario_rec *r = file_rec(ncid, NULL);                                                   \
    if (r) {                                                                                      \
      pario_lock(&r->lock);                                                                       \
      r->touched = 1;                                                                             \
      r->i[PARIO_PNETCDF_FILE_WAITS]++;                                                           \
      r->i[PARIO_PNETCDF_FILE_WAIT_REQUESTS] += n;                                                \
      if (n > r->i[PARIO_PNETCDF_FILE_MAX_WAIT_REQUESTS]) r->i[PARIO_PNETCDF_FILE_MAX_WAIT_REQUESTS] = n; \
      r->f[PARIO_PNETCDF_FILE_F_WAIT_TIME] += (double)(t1 - t0);                                  \
      pario_unlock(&r->lock);                                                                     \
    }                                                                                             \
    pario_lib_leave();                                                                            \
    return ret;                                                                                   \
  }
WAIT_WRAP(ncmpi_wait_all)
WAIT_WRAP(ncmpi_wait)

/* ---- variables ---- */
static int var_of(int ncid, int varid, struct pario_handle *h) {
  if (pario_hmap_get(&vars, (uint64_t)ncid, (uint64_t)varid, h)) return 1;
  char name[256] = "?";
  int xtype = 0, nd = 0, dimids[PN_MAX_DIMS], natts = 0, unlim = -1;
  if (pn.inq_var(ncid, varid, name, &xtype, &nd, dimids, &natts) != NC_NOERR || nd > PN_MAX_DIMS) return 0;
  pn.inq_unlimdim(ncid, &unlim);
  struct pario_rec *f = file_rec(ncid, NULL);
  *h = (struct pario_handle){.k1 = (uint64_t)ncid, .k2 = (uint64_t)varid, .file = f};
  h->var = f ? pario_lib_rec(f->path, name, PARIO_MOD_PNETCDF_VAR) : NULL;
  if (!h->var) return 0;
  char props[512];
  size_t len = (size_t)snprintf(props, sizeof props, "dims=");
  for (int k = 0; k < nd && len < sizeof props; k++) {
    MPI_Offset n = 0;
    pn.inq_dimlen(ncid, dimids[k], &n);
    len += dimids[k] == unlim ? (size_t)snprintf(props + len, sizeof props - len, "%sunlimited", k ? "x" : "")
                              : (size_t)snprintf(props + len, sizeof props - len, "%s%lld", k ? "x" : "", (long long)n);
  }
  if (!nd) snprintf(props, sizeof props, "dims=scalar");
  pario_rec_set_props(h->var, props);
  MPI_Offset off = 0;
  int64_t record = nd > 0 && dimids[0] == unlim;
  h->aux[V_NDIMS] = nd;
  h->aux[V_TYPE_SIZE] = ext_size(xtype);
  h->aux[V_UNLIM] = record;
  pario_rec_max(h->var, PARIO_PNETCDF_VAR_NDIMS, nd);
  pario_rec_max(h->var, PARIO_PNETCDF_VAR_RECORD, record);
  pario_rec_max(h->var, PARIO_PNETCDF_VAR_TYPE_SIZE, h->aux[V_TYPE_SIZE]);
  if (pn.inq_varoffset && pn.inq_varoffset(ncid, varid, &off) == NC_NOERR)
    pario_rec_max(h->var, PARIO_PNETCDF_VAR_FILE_OFFSET, off);
  if (pario_hmap_put(&vars, h) != 0) h->var = pario_rec_overflow(PARIO_MOD_PNETCDF_VAR);
  return 1;
}

/* Elements a call selects, by form. */
static int64_t elems_of_var(int ncid, int varid) { /* the whole variable, as it is now */
  char name[256];
  int xtype, nd = 0, dimids[PN_MAX_DIMS], natts;
  if (pn.inq_var(ncid, varid, name, &xtype, &nd, dimids, &natts) != NC_NOERR || nd > PN_MAX_DIMS) return 0;
  int64_t n = 1;
  for (int k = 0; k < nd; k++) {
    MPI_Offset len = 0;
    pn.inq_dimlen(ncid, dimids[k], &len);
    n *= len;
  }
  return n;
}
static int64_t elems_of_count(int nd, const MPI_Offset *count) {
  int64_t n = 1;
  for (int k = 0; count && k < nd; k++) n *= count[k];
  return n;
}
static int64_t elems_of_counts(int nd, int num, MPI_Offset *const *counts) {
  int64_t n = 0;
  for (int j = 0; j < num; j++) n += counts ? elems_of_count(nd, counts[j]) : 1;
  return n;
}

enum { M_INDEP, M_COLL, M_IPUT, M_BPUT, M_IGET };
static const int mode_idx[2][5] = {
    {PARIO_PNETCDF_VAR_INDEP_READS, PARIO_PNETCDF_VAR_COLL_READS, -1, -1, PARIO_PNETCDF_VAR_IGETS},
    {PARIO_PNETCDF_VAR_INDEP_WRITES, PARIO_PNETCDF_VAR_COLL_WRITES, PARIO_PNETCDF_VAR_IPUTS, PARIO_PNETCDF_VAR_BPUTS, -1}};

/* Bytes of a call: typed (elem_size > 0), else flexible: bufcount x the buffer type's size, or,
 * with bufcount -1, the elements selected x that type's (the variable's when it is NULL). */
static int64_t call_bytes(const struct pario_handle *h, int64_t elems, int64_t elem_size, MPI_Offset bufcount,
                          MPI_Datatype buftype) {
  if (elem_size > 0) return elems * elem_size;
  int tsz = 0;
  if (buftype != MPI_DATATYPE_NULL && PMPI_Type_size(buftype, &tsz) != MPI_SUCCESS) tsz = 0;
  if (bufcount >= 0 && tsz > 0) return (int64_t)bufcount * tsz;
  return elems * (tsz > 0 ? tsz : h->aux[V_TYPE_SIZE]);
}

static void data_call(int ncid, int varid, int kind, int mode, int varn, int form, int nd_hint, const MPI_Offset *count,
                      int num, MPI_Offset *const *counts, int64_t elem_size, MPI_Offset bufcount, MPI_Datatype buftype,
                      int64_t t0, int64_t t1) {
  (void)nd_hint;
  pario_lib_enter();
  struct pario_handle h;
  if (var_of(ncid, varid, &h)) {
    int nd = (int)h.aux[V_NDIMS];
    int64_t elems = form == 0 ? elems_of_var(ncid, varid) : form == 1 ? 1
                  : varn ? elems_of_counts(nd, num, counts) : elems_of_count(nd, count);
    pario_lib_io(h.file, h.var, kind, call_bytes(&h, elems, elem_size, bufcount, buftype), t0, t1);
    int idx = mode_idx[kind][mode];
    pario_lock(&h.var->lock);
    if (idx >= 0) h.var->i[idx]++;
    if (varn) h.var->i[PARIO_PNETCDF_VAR_VARN_CALLS]++;
    pario_unlock(&h.var->lock);
  }
  pario_lib_leave();
}

/* One wrapper: NAME, its parameters and arguments, how it selects (form: 0 var, 1 var1, 2 vara/
 * vars/varm, 3 varn), direction, mode, element size (0: flexible) and its flexible arguments. */
#define PN_WRAP(NAME, PARAMS, ARGS, FORM, VARN, COUNT, NUM, COUNTS, KIND, MODE, ESIZE, BUFCOUNT, BUFTYPE) \
  int NAME PARAMS {                                                                                       \
    PN_TIMED(NAME, ARGS);                                                                                  \
    if (ret == NC_NOERR)                                                                                   \
      data_call(ncid, varid, KIND, MODE, VARN, FORM, 0, COUNT, NUM, COUNTS, ESIZE, BUFCOUNT, BUFTYPE, t0, t1); \
    return ret;                                                                                            \
  }

/* Parameter lists by form; B is the buffer's declaration, X the flexible and request tail. */
#define P_VAR(B, X) (int ncid, int varid, B X)
#define P_VAR1(B, X) (int ncid, int varid, const MPI_Offset *start, B X)
#define P_VARA(B, X) (int ncid, int varid, const MPI_Offset *start, const MPI_Offset *count, B X)
#define P_VARS(B, X) (int ncid, int varid, const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, B X)
#define P_VARM(B, X) \
  (int ncid, int varid, const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, const MPI_Offset *imap, B X)
#define P_VARN(B, X) (int ncid, int varid, int num, MPI_Offset *const *starts, MPI_Offset *const *counts, B X)
#define A_VAR(X) (ncid, varid, buf X)
#define A_VAR1(X) (ncid, varid, start, buf X)
#define A_VARA(X) (ncid, varid, start, count, buf X)
#define A_VARS(X) (ncid, varid, start, count, stride, buf X)
#define A_VARM(X) (ncid, varid, start, count, stride, imap, buf X)
#define A_VARN(X) (ncid, varid, num, starts, counts, buf X)
#define E_VAR 0, 0, NULL, 0, NULL
#define E_VAR1 1, 0, NULL, 0, NULL
#define E_VARA 2, 0, count, 0, NULL
#define E_VARS 2, 0, count, 0, NULL
#define E_VARM 2, 0, count, 0, NULL
#define E_VARN 3, 1, NULL, num, counts

#define COMMA ,
#define NOREQ
#define REQP , int *req
#define REQA , req
#define FLEXP , MPI_Offset bufcount, MPI_Datatype buftype
#define FLEXA , bufcount, buftype

/* Arguments expanded first (E_* are several), then the wrapper. */
#define PN_WRAP_(...) PN_WRAP(__VA_ARGS__)

/* Every mode of one form, typed (T, its name TN) */
#define PN_TYPED(F, f, TN, T)                                                                                        \
  PN_WRAP_(ncmpi_put_##f##_##TN, P_##F(const T *buf, NOREQ), A_##F(NOREQ), E_##F, PARIO_KIND_WRITE, M_INDEP, sizeof(T), -2, MPI_DATATYPE_NULL) \
  PN_WRAP_(ncmpi_put_##f##_##TN##_all, P_##F(const T *buf, NOREQ), A_##F(NOREQ), E_##F, PARIO_KIND_WRITE, M_COLL, sizeof(T), -2, MPI_DATATYPE_NULL) \
  PN_WRAP_(ncmpi_get_##f##_##TN, P_##F(T *buf, NOREQ), A_##F(NOREQ), E_##F, PARIO_KIND_READ, M_INDEP, sizeof(T), -2, MPI_DATATYPE_NULL) \
  PN_WRAP_(ncmpi_get_##f##_##TN##_all, P_##F(T *buf, NOREQ), A_##F(NOREQ), E_##F, PARIO_KIND_READ, M_COLL, sizeof(T), -2, MPI_DATATYPE_NULL) \
  PN_WRAP_(ncmpi_iput_##f##_##TN, P_##F(const T *buf, REQP), A_##F(REQA), E_##F, PARIO_KIND_WRITE, M_IPUT, sizeof(T), -2, MPI_DATATYPE_NULL) \
  PN_WRAP_(ncmpi_bput_##f##_##TN, P_##F(const T *buf, REQP), A_##F(REQA), E_##F, PARIO_KIND_WRITE, M_BPUT, sizeof(T), -2, MPI_DATATYPE_NULL) \
  PN_WRAP_(ncmpi_iget_##f##_##TN, P_##F(T *buf, REQP), A_##F(REQA), E_##F, PARIO_KIND_READ, M_IGET, sizeof(T), -2, MPI_DATATYPE_NULL)
/* ... and flexible (a buffer count and MPI datatype) */
#define PN_FLEX(F, f)                                                                                                \
  PN_WRAP_(ncmpi_put_##f, P_##F(const void *buf, FLEXP), A_##F(FLEXA), E_##F, PARIO_KIND_WRITE, M_INDEP, 0, bufcount, buftype) \
  PN_WRAP_(ncmpi_put_##f##_all, P_##F(const void *buf, FLEXP), A_##F(FLEXA), E_##F, PARIO_KIND_WRITE, M_COLL, 0, bufcount, buftype) \
  PN_WRAP_(ncmpi_get_##f, P_##F(void *buf, FLEXP), A_##F(FLEXA), E_##F, PARIO_KIND_READ, M_INDEP, 0, bufcount, buftype) \
  PN_WRAP_(ncmpi_get_##f##_all, P_##F(void *buf, FLEXP), A_##F(FLEXA), E_##F, PARIO_KIND_READ, M_COLL, 0, bufcount, buftype) \
  PN_WRAP_(ncmpi_iput_##f, P_##F(const void *buf, FLEXP REQP), A_##F(FLEXA REQA), E_##F, PARIO_KIND_WRITE, M_IPUT, 0, bufcount, buftype) \
  PN_WRAP_(ncmpi_bput_##f, P_##F(const void *buf, FLEXP REQP), A_##F(FLEXA REQA), E_##F, PARIO_KIND_WRITE, M_BPUT, 0, bufcount, buftype) \
  PN_WRAP_(ncmpi_iget_##f, P_##F(void *buf, FLEXP REQP), A_##F(FLEXA REQA), E_##F, PARIO_KIND_READ, M_IGET, 0, bufcount, buftype)

#define PN_TYPES(F, f)                                                                                  \
  PN_TYPED(F, f, text, char) PN_TYPED(F, f, schar, signed char) PN_TYPED(F, f, uchar, unsigned char)   \
  PN_TYPED(F, f, short, short) PN_TYPED(F, f, ushort, unsigned short) PN_TYPED(F, f, int, int)         \
  PN_TYPED(F, f, uint, unsigned int) PN_TYPED(F, f, long, long) PN_TYPED(F, f, float, float)           \
  PN_TYPED(F, f, double, double) PN_TYPED(F, f, longlong, long long)                                  \
  PN_TYPED(F, f, ulonglong, unsigned long long) PN_FLEX(F, f)

PN_TYPES(VAR, var)
PN_TYPES(VAR1, var1)
PN_TYPES(VARA, vara)
PN_TYPES(VARS, vars)
PN_TYPES(VARM, varm)
PN_TYPES(VARN, varn)
