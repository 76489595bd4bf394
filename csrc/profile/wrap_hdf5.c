/* HDF5 wrappers (issue 29): files (H5Fcreate/H5Fopen/H5Fclose and their access properties) and
 * datasets (H5Dcreate/H5Dopen/H5Dclose, H5Dwrite/H5Dread: bytes, selection kind, the transfer
 * mode asked for and what HDF5 did, H5Pget_mpio_actual_io_mode and
 * H5Pget_mpio_no_collective_cause).
 *
 * HDF5's headers are not needed: the few types and values used are HDF5's ABI since 1.10 (hid_t
 * 64-bit), declared below; tests/c/hdf5_abi.c checks them against the installed headers. An
 * HDF5 older than 1.10 is passed through unrecorded (said once). A parallel HDF5's functions
 * (the MPI-IO driver, the actual I/O mode) are looked up and used only where they exist. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "profile/libs.h"

typedef int64_t hid_t;
typedef int herr_t;
typedef int htri_t;
typedef unsigned long long hsize_t;
typedef long long hssize_t;
typedef uint64_t haddr_t;
typedef herr_t (*H5E_auto2_t)(hid_t estack, void *client_data);
#define H5P_DEFAULT ((hid_t)0)
#define H5S_ALL ((hid_t)0)
#define H5E_DEFAULT ((hid_t)0)
#define HADDR_UNDEF ((haddr_t)(int64_t)(-1))
enum { H5S_SEL_NONE = 0, H5S_SEL_POINTS = 1, H5S_SEL_HYPERSLABS = 2, H5S_SEL_ALL = 3 };
enum { H5D_COMPACT = 0, H5D_CONTIGUOUS = 1, H5D_CHUNKED = 2, H5D_VIRTUAL = 3 };
enum { H5FD_MPIO_INDEPENDENT = 0, H5FD_MPIO_COLLECTIVE = 1 };
enum { H5D_MPIO_NO_COLLECTIVE = 0, H5D_MPIO_CHUNK_INDEPENDENT = 1, H5D_MPIO_CHUNK_COLLECTIVE = 2,
       H5D_MPIO_CHUNK_MIXED = 3, H5D_MPIO_CONTIGUOUS_COLLECTIVE = 4 };
#define H5_MAX_RANK 32

/* The wrapped functions, as HDF5 declares them. */
hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl);
hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl);
herr_t H5Fclose(hid_t file);
herr_t H5Fflush(hid_t obj, int scope);
hid_t H5Dcreate2(hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl);
hid_t H5Dcreate1(hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl);
hid_t H5Dopen2(hid_t loc, const char *name, hid_t dapl);
hid_t H5Dopen1(hid_t loc, const char *name);
herr_t H5Dclose(hid_t dset);
herr_t H5Dwrite(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, const void *buf);
herr_t H5Dread(hid_t dset, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, void *buf);
herr_t H5Dset_extent(hid_t dset, const hsize_t size[]);

/* What the wrappers ask HDF5 (resolved once, on first use). */
static struct {
  int ok;  /* 1: HDF5 >= 1.10 (recorded), -1: older (passed through) */
  herr_t (*get_libversion)(unsigned *, unsigned *, unsigned *);
  ssize_t (*fget_name)(hid_t, char *, size_t);
  ssize_t (*iget_name)(hid_t, char *, size_t);
  hid_t (*dget_type)(hid_t), (*dget_space)(hid_t), (*dget_create_plist)(hid_t), (*fget_access_plist)(hid_t);
  size_t (*tget_size)(hid_t);
  herr_t (*tclose)(hid_t), (*sclose)(hid_t), (*pclose)(hid_t);
  int (*sget_ndims)(hid_t);
  int (*sget_dims)(hid_t, hsize_t *, hsize_t *);
  hssize_t (*sget_npoints)(hid_t);
  int (*sget_type)(hid_t);
  htri_t (*sis_regular)(hid_t);
  int (*pget_layout)(hid_t);
  int (*pget_chunk)(hid_t, int, hsize_t *);
  int (*pget_nfilters)(hid_t);
  int (*pget_filter2)(hid_t, unsigned, unsigned *, size_t *, unsigned *, size_t, char *, unsigned *);
  hid_t (*pget_driver)(hid_t);
  hid_t (*mpio_init)(void);
  herr_t (*pget_alignment)(hid_t, hsize_t *, hsize_t *);
  herr_t (*pget_coll_md_ops)(hid_t, void *), (*pget_coll_md_write)(hid_t, void *);
  herr_t (*pget_meta_block)(hid_t, hsize_t *);
  herr_t (*pget_sieve)(hid_t, size_t *);
  herr_t (*pget_page_buf)(hid_t, size_t *, unsigned *, unsigned *);
  herr_t (*pget_dxpl_mpio)(hid_t, int *);
  herr_t (*pget_actual_io_mode)(hid_t, int *);
  herr_t (*pget_no_coll_cause)(hid_t, uint32_t *, uint32_t *);
  haddr_t (*dget_offset)(hid_t);
  herr_t (*eget_auto)(hid_t, H5E_auto2_t *, void **), (*eset_auto)(hid_t, H5E_auto2_t, void *);
} h5;

#define OPT(field, name) h5.field = (__typeof__(h5.field))pario_lib_opt(PARIO_LIB_HDF5, name)
static int h5_ready(void) {
  if (h5.ok) return h5.ok > 0;
  OPT(get_libversion, "H5get_libversion");
  unsigned maj = 0, min = 0, rel = 0;
  if (!h5.get_libversion || h5.get_libversion(&maj, &min, &rel) < 0 || maj < 1 || (maj == 1 && min < 10)) {
    static const char m[] = "pario-preload: HDF5 older than 1.10 (or its version unknown): its calls are not recorded\n";
    syscall(SYS_write, 2, m, sizeof m - 1);
    h5.ok = -1;
    return 0;
  }
  char v[32];
  snprintf(v, sizeof v, "%u.%u.%u", maj, min, rel);
  pario_lib_version(PARIO_LIB_HDF5, v);
  OPT(fget_name, "H5Fget_name"); OPT(iget_name, "H5Iget_name"); OPT(dget_type, "H5Dget_type");
  OPT(dget_space, "H5Dget_space"); OPT(dget_create_plist, "H5Dget_create_plist");
  OPT(fget_access_plist, "H5Fget_access_plist"); OPT(tget_size, "H5Tget_size"); OPT(tclose, "H5Tclose");
  OPT(sclose, "H5Sclose"); OPT(pclose, "H5Pclose"); OPT(sget_ndims, "H5Sget_simple_extent_ndims");
  OPT(sget_dims, "H5Sget_simple_extent_dims"); OPT(sget_npoints, "H5Sget_select_npoints");
  OPT(sget_type, "H5Sget_select_type"); OPT(sis_regular, "H5Sis_regular_hyperslab");
  OPT(pget_layout, "H5Pget_layout"); OPT(pget_chunk, "H5Pget_chunk"); OPT(pget_nfilters, "H5Pget_nfilters");
  OPT(pget_filter2, "H5Pget_filter2"); OPT(pget_driver, "H5Pget_driver"); OPT(mpio_init, "H5FD_mpio_init");
  OPT(pget_alignment, "H5Pget_alignment"); OPT(pget_coll_md_ops, "H5Pget_all_coll_metadata_ops");
  OPT(pget_coll_md_write, "H5Pget_coll_metadata_write"); OPT(pget_meta_block, "H5Pget_meta_block_size");
  OPT(pget_sieve, "H5Pget_sieve_buf_size"); OPT(pget_page_buf, "H5Pget_page_buffer_size");
  OPT(pget_dxpl_mpio, "H5Pget_dxpl_mpio"); OPT(pget_actual_io_mode, "H5Pget_mpio_actual_io_mode");
  OPT(pget_no_coll_cause, "H5Pget_mpio_no_collective_cause"); OPT(dget_offset, "H5Dget_offset");
  OPT(eget_auto, "H5Eget_auto2"); OPT(eset_auto, "H5Eset_auto2");
  int need = h5.fget_name && h5.iget_name && h5.dget_type && h5.dget_space && h5.tget_size && h5.tclose &&
             h5.sclose && h5.pclose && h5.sget_npoints && h5.sget_type && h5.sget_dims && h5.sget_ndims;
  h5.ok = need ? 1 : -1;
  return h5.ok > 0;
}

/* HDF5 prints its error stack when a call fails: the profiler's questions that may fail (a
 * property a file does not have) are asked with printing off. */
struct quiet { H5E_auto2_t fn; void *data; int saved; };
static void quiet_on(struct quiet *q) {
  q->saved = h5.eget_auto && h5.eset_auto && h5.eget_auto(H5E_DEFAULT, &q->fn, &q->data) >= 0;
  if (q->saved) h5.eset_auto(H5E_DEFAULT, NULL, NULL);
}
static void quiet_off(struct quiet *q) {
  if (q->saved) h5.eset_auto(H5E_DEFAULT, q->fn, q->data);
}

/* ---- files ---- */
static struct pario_hmap files = PARIO_HMAP_INIT; /* file hid -> H5F record */
static struct pario_hmap dsets = PARIO_HMAP_INIT; /* dataset hid -> H5D record, its file's, facts */
enum { D_TYPE_SIZE, D_OFFSET_KNOWN, D_CONTIG, D_MPIO };

static void abs_name(hid_t obj, char *abs, size_t cap) {
  char name[PATH_MAX];
  ssize_t n = h5.fget_name(obj, name, sizeof name);
  if (n <= 0 || n >= (ssize_t)sizeof name) snprintf(name, sizeof name, "?");
  pario_abspath(name, abs, cap);
}

/* The access properties that matter, from the program's list (or the file's, for H5P_DEFAULT:
 * then no MPI-IO driver, whose list HDF5 would duplicate a communicator to give). */
static void file_facts(struct pario_rec *r, hid_t fid, hid_t fapl) {
  struct quiet q;
  quiet_on(&q);
  hid_t own = fapl == H5P_DEFAULT && h5.fget_access_plist ? h5.fget_access_plist(fid) : -1;
  hid_t p = own >= 0 ? own : fapl;
  int64_t mpio = 0, thr = 1, align = 1, mdr = 0, mdw = 0, mbs = 0, sieve = 0, page = 0;
  if (p > 0) {
    hid_t drv = h5.pget_driver ? h5.pget_driver(p) : -1;
    mpio = drv >= 0 && h5.mpio_init && drv == h5.mpio_init();
    hsize_t a = 0, b = 0;
    if (h5.pget_alignment && h5.pget_alignment(p, &a, &b) >= 0) { thr = (int64_t)a; align = (int64_t)b; }
    uint64_t flag = 0;
    if (h5.pget_coll_md_ops && h5.pget_coll_md_ops(p, &flag) >= 0) mdr = flag != 0;
    flag = 0;
    if (h5.pget_coll_md_write && h5.pget_coll_md_write(p, &flag) >= 0) mdw = flag != 0;
    hsize_t hs = 0;
    if (h5.pget_meta_block && h5.pget_meta_block(p, &hs) >= 0) mbs = (int64_t)hs;
    size_t sz = 0;
    unsigned u1, u2;
    if (h5.pget_sieve && h5.pget_sieve(p, &sz) >= 0) sieve = (int64_t)sz;
    sz = 0;
    if (h5.pget_page_buf && h5.pget_page_buf(p, &sz, &u1, &u2) >= 0) page = (int64_t)sz;
  } else { /* H5P_DEFAULT and no way to ask: HDF5's defaults */
    mbs = 2048;
    sieve = 65536;
  }
  if (own >= 0) h5.pclose(own);
  quiet_off(&q);
  pario_lock(&r->lock);
  r->touched = 1;
  r->i[PARIO_H5F_MPIO] = mpio;
  r->i[PARIO_H5F_ALIGN_THRESHOLD] = thr;
  r->i[PARIO_H5F_ALIGNMENT] = align;
  r->i[PARIO_H5F_COLL_MD_READS] = mdr;
  r->i[PARIO_H5F_COLL_MD_WRITES] = mdw;
  r->i[PARIO_H5F_META_BLOCK_SIZE] = mbs;
  r->i[PARIO_H5F_SIEVE_BUF_SIZE] = sieve;
  r->i[PARIO_H5F_PAGE_BUFFER_SIZE] = page;
  pario_unlock(&r->lock);
  pario_rec_set_props(r, mpio ? "driver=mpio" : "driver=other");
}

static void file_opened(hid_t fid, hid_t fapl, int idx, int64_t t0, int64_t t1) {
  char abs[PATH_MAX];
  abs_name(fid, abs, sizeof abs);
  struct pario_rec *r = pario_rec_get(abs, PARIO_MOD_H5F);
  if (!r) return;
  struct pario_handle h = {.k1 = (uint64_t)fid, .file = r};
  if (pario_hmap_put(&files, &h) != 0) r = pario_rec_overflow(PARIO_MOD_H5F);
  pario_rec_open(r, idx, t0, t1);
  file_facts(r, fid, fapl);
}

hid_t H5Fcreate(const char *name, unsigned flags, hid_t fcpl, hid_t fapl) {
  PARIO_LIB_REAL(PARIO_LIB_HDF5, H5Fcreate);
  if (!real_H5Fcreate) return -1;
  if (!PARIO_LIB_ACTIVE() || !h5_ready()) return real_H5Fcreate(name, flags, fcpl, fapl);
  int64_t t0 = pario_ticks();
  hid_t fid = real_H5Fcreate(name, flags, fcpl, fapl);
  int64_t t1 = pario_ticks();
  if (fid >= 0) { pario_lib_enter(); file_opened(fid, fapl, PARIO_H5F_CREATES, t0, t1); pario_lib_leave(); }
  return fid;
}

hid_t H5Fopen(const char *name, unsigned flags, hid_t fapl) {
  PARIO_LIB_REAL(PARIO_LIB_HDF5, H5Fopen);
  if (!real_H5Fopen) return -1;
  if (!PARIO_LIB_ACTIVE() || !h5_ready()) return real_H5Fopen(name, flags, fapl);
  int64_t t0 = pario_ticks();
  hid_t fid = real_H5Fopen(name, flags, fapl);
  int64_t t1 = pario_ticks();
  if (fid >= 0) { pario_lib_enter(); file_opened(fid, fapl, PARIO_H5F_OPENS, t0, t1); pario_lib_leave(); }
  return fid;
}

herr_t H5Fclose(hid_t fid) {
  PARIO_LIB_REAL(PARIO_LIB_HDF5, H5Fclose);
  if (!real_H5Fclose) return -1;
  if (!PARIO_LIB_ACTIVE() || h5.ok <= 0) return real_H5Fclose(fid);
  struct pario_handle h;
  int known = pario_hmap_get(&files, (uint64_t)fid, 0, &h);
  int64_t t0 = pario_ticks();
  herr_t ret = real_H5Fclose(fid);
  int64_t t1 = pario_ticks();
  if (ret >= 0 && known) {
    pario_lib_enter();
    pario_rec_close(h.file, PARIO_H5F_CLOSES, t0, t1);
    pario_hmap_del(&files, (uint64_t)fid, 0);
    pario_lib_leave();
  }
  return ret;
}

herr_t H5Fflush(hid_t obj, int scope) {
  PARIO_LIB_REAL(PARIO_LIB_HDF5, H5Fflush);
  if (!real_H5Fflush) return -1;
  if (!PARIO_LIB_ACTIVE() || h5.ok <= 0) return real_H5Fflush(obj, scope);
  int64_t t0 = pario_ticks();
  herr_t ret = real_H5Fflush(obj, scope);
  int64_t t1 = pario_ticks();
  if (ret >= 0) {
    pario_lib_enter();
    char abs[PATH_MAX];
    abs_name(obj, abs, sizeof abs);
    struct pario_rec *r = pario_rec_get(abs, PARIO_MOD_H5F);
    if (r) pario_rec_meta(r, PARIO_H5F_FLUSHES, t0, t1);
    pario_lib_leave();
  }
  return ret;
}

/* ---- datasets ---- */
static int dims_text(char *out, size_t cap, int n, const hsize_t *d, int unlimited_too) {
  size_t len = 0;
  out[0] = 0;
  for (int k = 0; k < n && len < cap; k++) {
    int w = unlimited_too && d[k] == (hsize_t)-1 ? snprintf(out + len, cap - len, "%sunlimited", k ? "x" : "")
                                                 : snprintf(out + len, cap - len, "%s%llu", k ? "x" : "", d[k]);
    if (w < 0) break;
    len += (size_t)w;
  }
  return (int)len;
}

static const char *filter_name(int id, const char *given) {
  switch (id) {
    case 1: return "deflate";
    case 2: return "shuffle";
    case 3: return "fletcher32";
    case 4: return "szip";
    case 5: return "nbit";
    case 6: return "scaleoffset";
    default: return given && *given ? given : "other";
  }
}

/* The dataset's facts: type size, extent, layout and chunks, filters, where its data starts. */
static void dset_facts(struct pario_rec *r, hid_t did, struct pario_handle *h) {
  struct quiet q;
  quiet_on(&q);
  hid_t t = h5.dget_type(did), s = h5.dget_space(did), p = h5.dget_create_plist ? h5.dget_create_plist(did) : -1;
  int64_t tsize = t >= 0 ? (int64_t)h5.tget_size(t) : 0;
  if (t >= 0) h5.tclose(t);
  hsize_t dims[H5_MAX_RANK], maxd[H5_MAX_RANK], chunk[H5_MAX_RANK];
  int nd = s >= 0 ? h5.sget_ndims(s) : -1;
  if (nd < 0 || nd > H5_MAX_RANK || h5.sget_dims(s, dims, maxd) < 0) nd = 0;
  if (s >= 0) h5.sclose(s);
  int64_t elems = 1;
  for (int k = 0; k < nd; k++) elems *= (int64_t)dims[k];
  int layout = p >= 0 && h5.pget_layout ? h5.pget_layout(p) : -1;
  int cn = layout == H5D_CHUNKED && h5.pget_chunk ? h5.pget_chunk(p, H5_MAX_RANK, chunk) : 0;
  int64_t chunk_bytes = cn > 0 ? tsize : 0;
  for (int k = 0; k < cn; k++) chunk_bytes *= (int64_t)chunk[k];
  char props[1024], text[512];
  static const char *const layouts[] = {"compact", "contiguous", "chunked", "virtual"};
  size_t len = (size_t)snprintf(props, sizeof props, "layout=%s", layout >= 0 && layout <= 3 ? layouts[layout] : "unknown");
  dims_text(text, sizeof text, nd, dims, 0);
  len += (size_t)snprintf(props + len, sizeof props - len, ";dims=%s", nd ? text : "scalar");
  int grows = 0;
  for (int k = 0; k < nd; k++) grows |= maxd[k] != dims[k];
  if (grows && len < sizeof props) {
    dims_text(text, sizeof text, nd, maxd, 1);
    len += (size_t)snprintf(props + len, sizeof props - len, ";maxdims=%s", text);
  }
  if (cn > 0 && len < sizeof props) {
    dims_text(text, sizeof text, cn, chunk, 0);
    len += (size_t)snprintf(props + len, sizeof props - len, ";chunk=%s", text);
  }
  int nf = p >= 0 && h5.pget_nfilters ? h5.pget_nfilters(p) : 0;
  for (int k = 0; k < nf && h5.pget_filter2 && len < sizeof props; k++) {
    unsigned flags = 0, cd[8], cfg = 0;
    size_t ncd = 8;
    char fname[64] = "";
    int id = h5.pget_filter2(p, (unsigned)k, &flags, &ncd, cd, sizeof fname, fname, &cfg);
    len += (size_t)snprintf(props + len, sizeof props - len, "%s%s", k ? "," : ";filters=", filter_name(id, fname));
  }
  if (p >= 0) h5.pclose(p);
  haddr_t off = HADDR_UNDEF;
  if (layout == H5D_CONTIGUOUS && h5.dget_offset) off = h5.dget_offset(did);
  quiet_off(&q);
  pario_rec_set_props(r, props);
  pario_lock(&r->lock);
  r->touched = 1;
  r->i[PARIO_H5D_TYPE_SIZE] = tsize;
  r->i[PARIO_H5D_NDIMS] = nd;
  if (elems * tsize > r->i[PARIO_H5D_DATASET_SIZE]) r->i[PARIO_H5D_DATASET_SIZE] = elems * tsize;
  r->i[PARIO_H5D_CHUNK_SIZE] = chunk_bytes;
  r->i[PARIO_H5D_FILTERS] = nf > 0 ? nf : 0;
  if (off != HADDR_UNDEF) r->i[PARIO_H5D_FILE_OFFSET] = (int64_t)off;
  pario_unlock(&r->lock);
  h->aux[D_TYPE_SIZE] = tsize;
  h->aux[D_CONTIG] = layout == H5D_CONTIGUOUS;
  h->aux[D_OFFSET_KNOWN] = off != HADDR_UNDEF || layout != H5D_CONTIGUOUS;
}

static void dset_opened(hid_t did, int idx, int64_t t0, int64_t t1) {
  char abs[PATH_MAX], name[1024];
  abs_name(did, abs, sizeof abs);
  ssize_t n = h5.iget_name(did, name, sizeof name);
  if (n <= 0 || n >= (ssize_t)sizeof name) snprintf(name, sizeof name, "(anonymous)");
  struct pario_handle h = {.k1 = (uint64_t)did};
  h.var = pario_lib_rec(abs, name, PARIO_MOD_H5D);
  h.file = pario_rec_get(abs, PARIO_MOD_H5F);
  if (!h.var) return;
  h.aux[D_MPIO] = h.file ? h.file->i[PARIO_H5F_MPIO] : 0;
  dset_facts(h.var, did, &h);
  if (pario_hmap_put(&dsets, &h) != 0) h.var = pario_rec_overflow(PARIO_MOD_H5D);
  pario_rec_open(h.var, idx, t0, t1);
  if (h.file) pario_rec_meta(h.file, -1, t0, t1);
}

#define DSET_OPEN_WRAP(fn, idx, params, args)                                        \
  hid_t fn params {                                                                  \
    PARIO_LIB_REAL(PARIO_LIB_HDF5, fn);                                              \
    if (!real_##fn) return -1;                                                       \
    if (!PARIO_LIB_ACTIVE() || !h5_ready()) return real_##fn args;                   \
    int64_t t0 = pario_ticks();                                                      \
    hid_t did = real_##fn args;                                                      \
    int64_t t1 = pario_ticks();                                                      \
    if (did >= 0) { pario_lib_enter(); dset_opened(did, idx, t0, t1); pario_lib_leave(); } \
    return did;                                                                      \
  }
DSET_OPEN_WRAP(H5Dcreate2, PARIO_H5D_CREATES,
               (hid_t loc, const char *name, hid_t type, hid_t space, hid_t lcpl, hid_t dcpl, hid_t dapl),
               (loc, name, type, space, lcpl, dcpl, dapl))
DSET_OPEN_WRAP(H5Dcreate1, PARIO_H5D_CREATES, (hid_t loc, const char *name, hid_t type, hid_t space, hid_t dcpl),
               (loc, name, type, space, dcpl))
DSET_OPEN_WRAP(H5Dopen2, PARIO_H5D_OPENS, (hid_t loc, const char *name, hid_t dapl), (loc, name, dapl))
DSET_OPEN_WRAP(H5Dopen1, PARIO_H5D_OPENS, (hid_t loc, const char *name), (loc, name))

herr_t H5Dclose(hid_t did) {
  PARIO_LIB_REAL(PARIO_LIB_HDF5, H5Dclose);
  if (!real_H5Dclose) return -1;
  if (!PARIO_LIB_ACTIVE() || h5.ok <= 0) return real_H5Dclose(did);
  struct pario_handle h;
  int known = pario_hmap_get(&dsets, (uint64_t)did, 0, &h);
  int64_t t0 = pario_ticks();
  herr_t ret = real_H5Dclose(did);
  int64_t t1 = pario_ticks();
  if (ret >= 0 && known) {
    pario_lib_enter();
    pario_rec_close(h.var, PARIO_H5D_CLOSES, t0, t1);
    if (h.file) pario_rec_meta(h.file, -1, t0, t1);
    pario_hmap_del(&dsets, (uint64_t)did, 0);
    pario_lib_leave();
  }
  return ret;
}

herr_t H5Dset_extent(hid_t did, const hsize_t size[]) {
  PARIO_LIB_REAL(PARIO_LIB_HDF5, H5Dset_extent);
  if (!real_H5Dset_extent) return -1;
  if (!PARIO_LIB_ACTIVE() || h5.ok <= 0) return real_H5Dset_extent(did, size);
  int64_t t0 = pario_ticks();
  herr_t ret = real_H5Dset_extent(did, size);
  int64_t t1 = pario_ticks();
  struct pario_handle h;
  if (ret >= 0 && pario_hmap_get(&dsets, (uint64_t)did, 0, &h)) {
    pario_lib_enter();
    pario_rec_meta(h.var, PARIO_H5D_SET_EXTENTS, t0, t1);
    if (h.file) pario_rec_meta(h.file, -1, t0, t1);
    dset_facts(h.var, did, &h); /* the new extent */
    pario_lib_leave();
  }
  return ret;
}

/* What a data call asks for, before it runs: its bytes, its selection, the transfer mode. */
struct xfer { int64_t bytes; int sel_idx; int coll; };
static struct xfer before(const struct pario_handle *h, hid_t did, hid_t mtype, hid_t mspace, hid_t fspace,
                          hid_t dxpl) {
  struct xfer x = {0, PARIO_H5D_SELECT_ALL, 0};
  hssize_t n = -1;
  if (fspace != H5S_ALL) {
    n = h5.sget_npoints(fspace);
    int kind = h5.sget_type(fspace);
    x.sel_idx = kind == H5S_SEL_NONE ? PARIO_H5D_SELECT_NONE : kind == H5S_SEL_POINTS ? PARIO_H5D_SELECT_POINTS
              : kind == H5S_SEL_HYPERSLABS ? (h5.sis_regular && h5.sis_regular(fspace) > 0 ? PARIO_H5D_SELECT_REGULAR
                                                                                          : PARIO_H5D_SELECT_IRREGULAR)
                                           : PARIO_H5D_SELECT_ALL;
  } else if (mspace != H5S_ALL) {
    n = h5.sget_npoints(mspace); /* the file selection is the whole dataset, as many points as memory's */
  } else {
    hid_t s = h5.dget_space(did);
    if (s >= 0) { n = h5.sget_npoints(s); h5.sclose(s); }
  }
  /* the memory type: the same few ids over and over (H5T_NATIVE_DOUBLE...) */
  static __thread hid_t last_type = -1;
  static __thread int64_t last_size;
  if (mtype != last_type) { last_size = (int64_t)h5.tget_size(mtype); last_type = mtype; }
  x.bytes = n > 0 ? (int64_t)n * last_size : 0;
  (void)h;
  int mode = H5FD_MPIO_INDEPENDENT;
  if (dxpl != H5P_DEFAULT && h5.pget_dxpl_mpio && h5.pget_dxpl_mpio(dxpl, &mode) < 0) mode = H5FD_MPIO_INDEPENDENT;
  x.coll = mode == H5FD_MPIO_COLLECTIVE;
  return x;
}

/* After a data call that worked: what it was, and what HDF5 did of a collective request. */
static void after(struct pario_handle *h, hid_t did, hid_t dxpl, int kind, const struct xfer *x, int64_t t0,
                  int64_t t1) {
  struct pario_rec *v = h->var;
  pario_lib_io(h->file, v, kind, x->bytes, t0, t1);
  pario_lock(&v->lock);
  v->i[x->sel_idx]++;
  if (x->coll) v->i[PARIO_H5D_COLL_REQUESTED]++;
  else if (h->aux[D_MPIO]) v->i[PARIO_H5D_INDEP_REQUESTED]++;
  pario_unlock(&v->lock);
  if (x->coll && h5.pget_actual_io_mode) {
    int mode = -1;
    uint32_t local = 0, global = 0;
    if (h5.pget_actual_io_mode(dxpl, &mode) >= 0) {
      int idx = mode == H5D_MPIO_CONTIGUOUS_COLLECTIVE ? PARIO_H5D_ACTUAL_CONTIG_COLL
              : mode == H5D_MPIO_CHUNK_COLLECTIVE ? PARIO_H5D_ACTUAL_CHUNK_COLL
              : mode == H5D_MPIO_CHUNK_INDEPENDENT ? PARIO_H5D_ACTUAL_CHUNK_INDEP
              : mode == H5D_MPIO_CHUNK_MIXED ? PARIO_H5D_ACTUAL_CHUNK_MIXED : PARIO_H5D_ACTUAL_NONE;
      int nocoll = mode == H5D_MPIO_NO_COLLECTIVE && h5.pget_no_coll_cause &&
                   h5.pget_no_coll_cause(dxpl, &local, &global) >= 0;
      uint32_t cause = local | global;
      pario_lock(&v->lock);
      v->i[idx]++;
      if (nocoll) {
        static const struct { uint32_t bit; int idx; } causes[] = {
            {0x02, PARIO_H5D_NOCOLL_TYPE_CONVERSION}, {0x04, PARIO_H5D_NOCOLL_DATA_TRANSFORM},
            {0x08, PARIO_H5D_NOCOLL_MPI_TYPES_OFF},   {0x10, PARIO_H5D_NOCOLL_NOT_SIMPLE},
            {0x20, PARIO_H5D_NOCOLL_LAYOUT},          {0x40, PARIO_H5D_NOCOLL_FILTERS},
            {0x80, PARIO_H5D_NOCOLL_ERROR}};
        uint32_t named = 0x01;
        for (size_t k = 0; k < sizeof causes / sizeof *causes; k++) {
          if (cause & causes[k].bit) v->i[causes[k].idx]++;
          named |= causes[k].bit;
        }
        if (cause & ~named) v->i[PARIO_H5D_NOCOLL_OTHER]++;
      }
      pario_unlock(&v->lock);
    }
  }
  if (!h->aux[D_OFFSET_KNOWN] && h5.dget_offset) { /* allocated by this write? */
    struct quiet q;
    quiet_on(&q);
    haddr_t off = h5.dget_offset(did);
    quiet_off(&q);
    if (off != HADDR_UNDEF) {
      pario_rec_max(v, PARIO_H5D_FILE_OFFSET, (int64_t)off);
      h->aux[D_OFFSET_KNOWN] = 1;
      pario_hmap_put(&dsets, h);
    }
  }
}

/* A dataset the program opened some other way (H5Oopen, before the profiler started): named at
 * its first data call (no open counted). */
static int known_dset(hid_t did, struct pario_handle *h) {
  if (pario_hmap_get(&dsets, (uint64_t)did, 0, h)) return 1;
  pario_lib_enter();
  struct quiet q;
  quiet_on(&q);
  ssize_t n = h5.iget_name(did, NULL, 0);
  quiet_off(&q);
  if (n > 0) {
    int64_t t = pario_ticks();
    dset_opened(did, -1, t, t);
  }
  pario_lib_leave();
  return n > 0 && pario_hmap_get(&dsets, (uint64_t)did, 0, h);
}

#define DATA_WRAP(fn, kind, bufq)                                                                   \
  herr_t fn(hid_t did, hid_t mtype, hid_t mspace, hid_t fspace, hid_t dxpl, bufq void *buf) {       \
    PARIO_LIB_REAL(PARIO_LIB_HDF5, fn);                                                              \
    if (!real_##fn) return -1;                                                                       \
    struct pario_handle h;                                                                           \
    if (!PARIO_LIB_ACTIVE() || !h5_ready() || !known_dset(did, &h))                                  \
      return real_##fn(did, mtype, mspace, fspace, dxpl, buf);                                       \
    pario_lib_enter();                                                                               \
    struct xfer x = before(&h, did, mtype, mspace, fspace, dxpl);                                    \
    pario_lib_leave();                                                                               \
    int64_t t0 = pario_ticks();                                                                      \
    herr_t ret = real_##fn(did, mtype, mspace, fspace, dxpl, buf);                                   \
    int64_t t1 = pario_ticks();                                                                      \
    if (ret >= 0) { pario_lib_enter(); after(&h, did, dxpl, kind, &x, t0, t1); pario_lib_leave(); }  \
    return ret;                                                                                      \
  }
DATA_WRAP(H5Dwrite, PARIO_KIND_WRITE, const)
DATA_WRAP(H5Dread, PARIO_KIND_READ, )
