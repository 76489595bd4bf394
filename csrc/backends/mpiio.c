/* MPI-IO: independent *_at, collective *_at_all, file views (vector for segmented, subarray for
 * k-D blocks, a struct of subarrays for NAS BTIO's cells), hints through MPI_Info, effective
 * hints through MPI_File_get_info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/mpiinfo.h"
#include "pario/backend.h"
#include "pario/errors.h"
#include "pario/pattern.h"

typedef struct {
  pario_file pub;
  MPI_File fh;
} mfile;

static int mpi_fail(int err, const char *what, const char *path) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0, cls = 0, code = PARIO_E_IO;
  MPI_Error_class(err, &cls);
  MPI_Error_string(err, s, &len);
  if (cls == MPI_ERR_NO_SPACE || cls == MPI_ERR_QUOTA) code = PARIO_E_NOSPACE;
  else if (cls == MPI_ERR_ACCESS || cls == MPI_ERR_READ_ONLY) code = PARIO_E_PERM;
  else if (cls == MPI_ERR_NO_SUCH_FILE || cls == MPI_ERR_BAD_FILE) code = PARIO_E_NOENT;
  return pario_err(code, "%s %s: %s", what, path, s);
}

/* NAS BTIO's file type (its MPI-IO methods): one 3-D subarray of 40-byte points per cell, joined
 * by a struct in cell order (increasing z, so offsets increase) and resized to one record, so that
 * the view tiles record after record: step s is view bytes [s * own, (s + 1) * own). */
static int btio_filetype(const pario_pattern *p, const pario_geom *g, MPI_Datatype *ft) {
  int n = pario_btio_cells(g->nmembers);
  if (n < 1) return pario_err(PARIO_E_SPEC, "btio: %d ranks is not a square", g->nmembers);
  MPI_Datatype point, joined, *cells = malloc(sizeof *cells * (size_t)n);
  int *blens = malloc(sizeof *blens * (size_t)n);
  MPI_Aint *disps = malloc(sizeof *disps * (size_t)n);
  if (!cells || !blens || !disps) {
    free(cells), free(blens), free(disps);
    return pario_err(PARIO_E_NOMEM, "out of memory");
  }
  MPI_Type_contiguous(PARIO_BTIO_POINT, MPI_BYTE, &point); /* the etype is MPI_BYTE: build on bytes */
  int sizes[3] = {(int)p->points[2], (int)p->points[1], (int)p->points[0]}; /* C order: z, y, x */
  for (int c = 0; c < n; c++) {
    pario_btio_cell cell;
    pario_btio_cell_of(p, g->member, g->nmembers, c, &cell);
    int sub[3] = {(int)cell.size[2], (int)cell.size[1], (int)cell.size[0]};
    int start[3] = {(int)cell.low[2], (int)cell.low[1], (int)cell.low[0]};
    MPI_Type_create_subarray(3, sizes, sub, start, MPI_ORDER_C, point, &cells[c]);
    blens[c] = 1;
    disps[c] = 0;
  }
  MPI_Type_create_struct(n, blens, disps, cells, &joined);
  MPI_Type_create_resized(joined, 0, (MPI_Aint)pario_btio_record_bytes(p), ft);
  for (int c = 0; c < n; c++) MPI_Type_free(&cells[c]);
  MPI_Type_free(&joined);
  MPI_Type_free(&point);
  MPI_Type_commit(ft);
  free(cells), free(blens), free(disps);
  return 0;
}

/* The file type of a member's region; MPI_DATATYPE_NULL when the pattern has no view. */
static int make_filetype(const pario_case *cs, const pario_geom *g, MPI_Datatype *ft, MPI_Offset *disp) {
  const pario_pattern *p = &cs->pat;
  MPI_Datatype unit;
  *ft = MPI_DATATYPE_NULL;
  *disp = 0;
  if (p->kind == PARIO_BTIO) return btio_filetype(p, g, ft);
  if (p->kind == PARIO_SEGMENTED) {
    /* count in units of xfer so that blocks beyond 2 GiB still fit MPI's int counts */
    MPI_Type_contiguous((int)p->xfer, MPI_BYTE, &unit);
    MPI_Type_vector((int)p->segments, (int)(p->block / p->xfer), (int)((uint64_t)g->nmembers * p->block / p->xfer),
                    unit, ft);
    *disp = (MPI_Offset)((uint64_t)g->member * p->block);
  } else if (p->kind == PARIO_SUBARRAY) {
    int gs[PARIO_MAX_DIMS], ls[PARIO_MAX_DIMS], st[PARIO_MAX_DIMS];
    for (int d = 0; d < p->ndims; d++) {
      ls[d] = (int)p->ldims[d];
      gs[d] = ls[d] * g->grid[d];
      st[d] = ls[d] * g->coords[d];
    }
    MPI_Type_contiguous(PARIO_ELEM, MPI_BYTE, &unit);
    MPI_Type_create_subarray(p->ndims, gs, ls, st, MPI_ORDER_C, unit, ft);
  } else {
    return 0;
  }
  MPI_Type_free(&unit);
  MPI_Type_commit(ft);
  return 0;
}

static int mpiio_open(const pario_file *a, pario_file **fh) {
  const pario_case *cs = a->cs;
  MPI_Info info = pario_hints_info(cs);
  int amode = a->dir == PARIO_WRITE ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
  mfile *f = calloc(1, sizeof *f);
  if (!f) return pario_err(PARIO_E_NOMEM, "out of memory");
  f->pub = *a;
  int err = MPI_File_open(a->comm, (char *)a->path, amode, info, &f->fh);
  int rc = 0;
  if (err != MPI_SUCCESS) {
    rc = mpi_fail(err, "MPI_File_open", a->path);
  } else if (cs->view) {
    MPI_Datatype ft;
    MPI_Offset disp;
    rc = make_filetype(cs, a->geom, &ft, &disp);
    if (rc) MPI_File_close(&f->fh);
    if (!rc && ft != MPI_DATATYPE_NULL) {
      err = MPI_File_set_view(f->fh, disp, MPI_BYTE, ft, "native", info);
      MPI_Type_free(&ft);
      if (err != MPI_SUCCESS) {
        rc = mpi_fail(err, "MPI_File_set_view", a->path);
        MPI_File_close(&f->fh);
      }
    }
  }
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (rc) {
    free(f);
    return rc;
  }
  *fh = &f->pub;
  return 0;
}

static int check_count(MPI_Status *st, uint64_t len, const char *path, uint64_t offset) {
  int n = 0;
  MPI_Get_count(st, MPI_BYTE, &n);
  if ((uint64_t)n != len)
    return pario_err(PARIO_E_SHORT, "%s: transferred %d of %llu bytes at offset %llu", path, n,
                     (unsigned long long)len, (unsigned long long)offset);
  return 0;
}

static int mpiio_xfer(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  mfile *f = (mfile *)fh;
  MPI_Status st;
  int err = dir == PARIO_WRITE ? MPI_File_write_at(f->fh, (MPI_Offset)offset, buf, (int)len, MPI_BYTE, &st)
                               : MPI_File_read_at(f->fh, (MPI_Offset)offset, buf, (int)len, MPI_BYTE, &st);
  if (err != MPI_SUCCESS) return mpi_fail(err, dir == PARIO_WRITE ? "MPI_File_write_at" : "MPI_File_read_at", f->pub.path);
  return check_count(&st, len, f->pub.path, offset);
}

static int mpiio_xfer_all(pario_file *fh, pario_dir dir, void *buf, uint64_t len, uint64_t offset) {
  mfile *f = (mfile *)fh;
  MPI_Status st;
  int err = dir == PARIO_WRITE ? MPI_File_write_at_all(f->fh, (MPI_Offset)offset, buf, (int)len, MPI_BYTE, &st)
                               : MPI_File_read_at_all(f->fh, (MPI_Offset)offset, buf, (int)len, MPI_BYTE, &st);
  if (err != MPI_SUCCESS)
    return mpi_fail(err, dir == PARIO_WRITE ? "MPI_File_write_at_all" : "MPI_File_read_at_all", f->pub.path);
  return check_count(&st, len, f->pub.path, offset);
}

static int mpiio_sync(pario_file *fh) {
  mfile *f = (mfile *)fh;
  int err = MPI_File_sync(f->fh);
  return err == MPI_SUCCESS ? 0 : mpi_fail(err, "MPI_File_sync", f->pub.path);
}

static int mpiio_close(pario_file *fh) {
  mfile *f = (mfile *)fh;
  int err = MPI_File_close(&f->fh);
  int rc = err == MPI_SUCCESS ? 0 : mpi_fail(err, "MPI_File_close", f->pub.path);
  free(f);
  return rc;
}

static int mpiio_info(pario_file *fh, pario_info *out) {
  mfile *f = (mfile *)fh;
  MPI_Info info;
  out->n = 0;
  if (MPI_File_get_info(f->fh, &info) != MPI_SUCCESS) return 0;
  pario_info_take(&info, out, "MPI_File_get_info");
  return 0;
}

const pario_backend pario_backend_mpiio = {
    .abi = PARIO_BACKEND_ABI,
    .name = "mpiio",
    .caps = PARIO_CAP_SHARED | PARIO_CAP_VIEW | PARIO_CAP_HINTS,
    .open = mpiio_open,
    .xfer = mpiio_xfer,
    .xfer_all = mpiio_xfer_all,
    .close = mpiio_close,
    .sync = mpiio_sync,
    .info = mpiio_info,
};
