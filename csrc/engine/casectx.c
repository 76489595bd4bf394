#include "engine/casectx.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/dispatch.h"
#include "pario/errors.h"
#include "pario/pattern.h"

static void *aligned(uint64_t bytes) {
  void *p = NULL;
  /* 4096 serves O_DIRECT on every common file system and costs nothing otherwise */
  if (posix_memalign(&p, 4096, bytes ? bytes : 8)) return NULL;
  return p;
}

static int nomem(const pario_case *cs, const char *what, uint64_t bytes) {
  return pario_err(PARIO_E_NOMEM, "case %s: cannot allocate %llu MiB for %s; lower buffer_max or the sizes",
                   cs->name, (unsigned long long)(bytes >> 20), what);
}

static void offsets_of(const pario_ctx *c, const pario_geom *g, uint64_t *out) {
  if (c->view) {
    for (uint64_t i = 0; i < c->n; i++) out[i] = i * c->call; /* view space */
  } else {
    pario_pattern_offsets(&c->cs->pat, g, out, c->n);
  }
}

static void geom_of(const pario_ctx *c, int member, pario_geom *g) {
  pario_pattern_geom(&c->cs->pat, member, c->g.nmembers, g);
  g->file_index = c->g.file_index;
  g->nfiles = c->g.nfiles;
}

static int plan_reorder(pario_ctx *c) {
  const pario_case *cs = c->cs;
  int s = cs->reorder == -1 ? c->w->host_size : cs->reorder;
  int rfile = c->g.file_index;
  c->rwriter = c->w->rank;
  c->rfile = rfile;
  c->rgeom = c->geom;
  c->shift = 0;
  if (c->g.aggregate || s <= 0) return 0; /* a leader reads all of its group anyway */
  if (cs->strategy == PARIO_FPP) {
    int target = (c->w->rank + s) % c->w->nranks;
    c->shift = (target - c->w->rank + c->w->nranks) % c->w->nranks;
    c->rwriter = target;
    rfile = target;
    c->rfile = target;
  } else {
    int tm = (c->g.member + s) % c->g.nmembers;
    c->shift = (tm - c->g.member + c->g.nmembers) % c->g.nmembers;
    c->rwriter = c->g.members[tm];
    geom_of(c, tm, &c->rgeom);
  }
  pario_file_path(c->run, c->ci, rfile, c->rpath, sizeof c->rpath);
  return 0;
}

int pario_ctx_init(pario_ctx *c, const pario_run *run, int ci, const pario_world *w) {
  memset(c, 0, sizeof *c);
  c->run = run;
  c->ci = ci;
  c->cs = &run->cases[ci];
  c->w = w;
  c->be = pario_backend_find(c->cs->backend);
  int rc = pario_group_make(c->cs, w, &c->g);
  if (rc) return rc;
  const pario_case *cs = c->cs;
  geom_of(c, c->g.member, &c->geom);
  c->view = cs->view && cs->pat.kind != PARIO_RANDOM;
  /* btio: one call per step, its cells through the view, as BTIO's write_all of one record */
  c->call = c->view && cs->pat.kind != PARIO_BTIO ? cs->pat.xfer : c->geom.call_bytes;
  c->n = c->call ? c->geom.member_bytes / c->call : 0;
  pario_file_path(run, ci, c->g.file_index, c->wpath, sizeof c->wpath);
  strcpy(c->rpath, c->wpath);
  plan_reorder(c);

  c->off = malloc(sizeof *c->off * (c->n ? c->n : 1));
  if (!c->off) return nomem(cs, "offsets", sizeof *c->off * c->n);
  offsets_of(c, &c->geom, c->off);
  if (c->rgeom.member != c->geom.member) {
    if (!(c->roff = malloc(sizeof *c->roff * (c->n ? c->n : 1)))) return nomem(cs, "offsets", sizeof *c->roff * c->n);
    offsets_of(c, &c->rgeom, c->roff);
  } else {
    c->roff = c->off;
  }
  if (c->g.aggregate && c->g.member == 0) {
    uint64_t total = c->n * (uint64_t)c->g.nmembers;
    if (!(c->aoff = malloc(sizeof *c->aoff * (total ? total : 1)))) return nomem(cs, "offsets", sizeof *c->aoff * total);
    for (int m = 0; m < c->g.nmembers; m++) {
      pario_geom gm;
      geom_of(c, m, &gm);
      offsets_of(c, &gm, c->aoff + (uint64_t)m * c->n);
    }
    if (!(c->gbuf = aligned(c->call * (uint64_t)c->g.nmembers))) return nomem(cs, "the gather buffer", c->call * c->g.nmembers);
  }
  uint64_t slots = cs->buffer_max / (c->call ? c->call : 1);
  c->slots = slots < 1 ? 1 : slots > c->n ? (c->n ? c->n : 1) : slots;
  if (!(c->ring = aligned(c->slots * c->call))) return nomem(cs, "the data buffer", c->slots * c->call);
  if (!(c->scratch = aligned(c->call))) return nomem(cs, "the verify buffer", c->call);
  int reads = 0;
  for (int k = 0; k < cs->nops; k++) reads |= cs->ops[k] == PARIO_OP_READ;
  if (reads && cs->read_check && c->be && !(c->be->caps & PARIO_CAP_NODATA)) { /* a read returns the reader's writer's data */
    if (!(c->expect = aligned(c->slots * c->call))) return nomem(cs, "the read check buffer", c->slots * c->call);
    int writer = c->g.aggregate ? w->rank : c->rwriter;
    for (uint64_t j = 0; j < c->slots; j++)
      pario_data_fill(cs->pat.seed, writer, j * (c->call / 8), (uint64_t *)(c->expect + j * c->call), c->call / 8);
  }
  return 0;
}

int pario_ctx_open(const pario_ctx *c, pario_dir dir, pario_file **fh) {
  pario_file pub = {
      .path = dir == PARIO_WRITE ? c->wpath : c->rpath,
      .comm = c->g.aggregate ? MPI_COMM_SELF : c->g.comm,
      .dir = dir,
      .cs = c->cs,
      .geom = dir == PARIO_WRITE ? &c->geom : &c->rgeom,
  };
  return pario_file_open(c->be, &pub, fh);
}

int pario_ctx_remove(const pario_ctx *c) { return pario_backend_remove(c->be, c->wpath); }

void pario_ctx_free(pario_ctx *c) {
  if (c->roff != c->off) free(c->roff);
  free(c->off);
  free(c->aoff);
  free(c->ring);
  free(c->expect);
  free(c->gbuf);
  free(c->scratch);
  pario_group_free(&c->g);
  memset(c, 0, sizeof *c);
}
