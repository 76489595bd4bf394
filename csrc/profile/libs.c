/* The I/O library wrappers' common parts (libs.h): the real functions, the handle tables, the
 * record updates they share, and what the log says about each library. */
#include "profile/libs.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const lib_names[PARIO_NUM_LIBS] = {"hdf5", "pnetcdf", "netcdf", "adios2"};
/* A function each library has, by which it is found in a process. */
static const char *const probes[PARIO_NUM_LIBS] = {"H5Dwrite", "ncmpi_create", "nc_open", "adios2_open"};

static struct {
  atomic_int called;
  char version[64];
  char object[PATH_MAX];
} libs[PARIO_NUM_LIBS];

/* ---- the real functions ---- */
static int is_self(void *p) {
  Dl_info mine, theirs;
  return dladdr((void *)is_self, &mine) && dladdr(p, &theirs) && mine.dli_fbase == theirs.dli_fbase;
}

#define MAX_OBJECTS 1024
struct names { const char *v[MAX_OBJECTS]; int n; const char *self; };
/* Every loaded object but the program, the vDSO and this library: a dlclose of this preloaded
 * library after dlopen(RTLD_NOLOAD) unmaps and maps its memory again (the trace was lost). */
static int collect_names(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct names *ns = arg;
  const char *name = info->dlpi_name;
  if (name && *name == '/' && strcmp(name, ns->self) && ns->n < MAX_OBJECTS) ns->v[ns->n++] = name;
  return 0;
}

/* The definition of name that is not this library's: the next in the global scope, else in any
 * loaded object (a library loaded with RTLD_LOCAL, as Python loads extensions and their
 * dependencies, is outside the global scope, but the program's calls still reach the wrappers). */
static void *lookup(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (p && !is_self(p)) return p;
  static struct names ns; /* one lookup at a time is enough: lookups are rare (once per function) */
  static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lk);
  Dl_info mine;
  ns.n = 0;
  ns.self = dladdr((void *)is_self, &mine) && mine.dli_fname ? mine.dli_fname : "";
  dl_iterate_phdr(collect_names, &ns); /* no dlopen inside the walk: it holds the loader's lock */
  p = NULL;
  for (int k = 0; k < ns.n && !p; k++) {
    void *h = dlopen(ns.v[k], RTLD_LAZY | RTLD_NOLOAD);
    if (!h) continue;
    void *q = dlsym(h, name);
    if (q && !is_self(q)) p = q;
    dlclose(h);
  }
  pthread_mutex_unlock(&lk);
  return p;
}

static void note_object(int lib, void *p) {
  Dl_info di;
  if (!libs[lib].object[0] && dladdr(p, &di) && di.dli_fname)
    snprintf(libs[lib].object, sizeof libs[lib].object, "%s", di.dli_fname);
}

void *pario_lib_sym(int lib, const char *name, int required) {
  void *p = lookup(name);
  if (p) {
    note_object(lib, p);
    atomic_store(&libs[lib].called, 1);
  } else if (required) {
    char msg[256];
    int n = snprintf(msg, sizeof msg, "pario-preload: %s not found after the profiler; calls to it fail and are not "
                                      "profiled\n", name);
    syscall(SYS_write, 2, msg, (size_t)n);
  }
  return p;
}

void *pario_lib_opt(int lib, const char *name) {
  (void)lib;
  return lookup(name);
}

void pario_lib_version(int lib, const char *version) {
  if (version && !libs[lib].version[0]) snprintf(libs[lib].version, sizeof libs[lib].version, "%s", version);
}

void pario_lib_version_word(int lib, const char *text) {
  char v[64];
  snprintf(v, sizeof v, "%s", text ? text : "");
  v[strcspn(v, " ")] = 0;
  pario_lib_version(lib, v);
}

/* ---- handles ---- */
static uint64_t hkey(uint64_t a, uint64_t b) {
  uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

static int ready(struct pario_hmap *m) {
  if (m->slots) return 1;
  if (m->failed) return 0;
  m->slots = pario_arena_alloc(sizeof(struct pario_handle) * PARIO_HMAP_CAP);
  if (m->slots) memset(m->slots, 0, sizeof(struct pario_handle) * PARIO_HMAP_CAP);
  else m->failed = 1;
  return m->slots != NULL;
}

static int find(struct pario_hmap *m, uint64_t k1, uint64_t k2) {
  for (unsigned n = 0, s = (unsigned)(hkey(k1, k2) % PARIO_HMAP_CAP); n < PARIO_HMAP_CAP;
       n++, s = (s + 1) % PARIO_HMAP_CAP) {
    struct pario_handle *h = &m->slots[s];
    if (!h->used) return -1;
    if (h->used == 1 && h->k1 == k1 && h->k2 == k2) return (int)s;
  }
  return -1;
}

/* The table's lock, skipped while the process has never had a second thread (as the records'
 * locks are: only this thread could start another, and it is here). */
static int lone(void) { return &__libc_single_threaded && __libc_single_threaded; }
static void hunlock(struct pario_hmap *m, int was_lone) { if (!was_lone) pthread_mutex_unlock(&m->lock); }

int pario_hmap_get(struct pario_hmap *m, uint64_t k1, uint64_t k2, struct pario_handle *out) {
  int one = lone();
  if (!one) pthread_mutex_lock(&m->lock);
  int s = ready(m) ? find(m, k1, k2) : -1;
  if (s >= 0) *out = m->slots[s];
  hunlock(m, one);
  return s >= 0;
}

int pario_hmap_put(struct pario_hmap *m, const struct pario_handle *h) {
  int one = lone();
  if (!one) pthread_mutex_lock(&m->lock);
  int s = -1;
  if (ready(m) && (s = find(m, h->k1, h->k2)) < 0) {
    for (unsigned n = 0, t = (unsigned)(hkey(h->k1, h->k2) % PARIO_HMAP_CAP); n < PARIO_HMAP_CAP;
         n++, t = (t + 1) % PARIO_HMAP_CAP)
      if (m->slots[t].used != 1) { s = (int)t; break; }
  }
  if (s >= 0) {
    m->slots[s] = *h;
    m->slots[s].used = 1;
  }
  hunlock(m, one);
  return s >= 0 ? 0 : -1;
}

static void drop(struct pario_hmap *m, int s) {
  /* a slot followed by an empty one can be empty itself: no probe passes through it */
  m->slots[s].used = m->slots[(s + 1) % PARIO_HMAP_CAP].used ? 2 : 0;
}

void pario_hmap_del(struct pario_hmap *m, uint64_t k1, uint64_t k2) {
  int one = lone();
  if (!one) pthread_mutex_lock(&m->lock);
  int s = ready(m) ? find(m, k1, k2) : -1;
  if (s >= 0) drop(m, s);
  hunlock(m, one);
}

void pario_hmap_del_k1(struct pario_hmap *m, uint64_t k1) {
  int one = lone();
  if (!one) pthread_mutex_lock(&m->lock);
  if (ready(m))
    for (int s = PARIO_HMAP_CAP - 1; s >= 0; s--)
      if (m->slots[s].used == 1 && m->slots[s].k1 == k1) drop(m, s);
  hunlock(m, one);
}

/* ---- records ---- */
void pario_rec_add(struct pario_rec *r, int idx, int64_t n) {
  if (!r) return;
  pario_lock(&r->lock);
  r->touched = 1;
  r->i[idx] += n;
  pario_unlock(&r->lock);
}

void pario_rec_max(struct pario_rec *r, int idx, int64_t v) {
  if (!r) return;
  pario_lock(&r->lock);
  r->touched = 1;
  if (v > r->i[idx]) r->i[idx] = v;
  pario_unlock(&r->lock);
}

void pario_rec_fadd(struct pario_rec *r, int fidx, int64_t t0, int64_t t1) {
  if (!r) return;
  pario_lock(&r->lock);
  r->touched = 1;
  r->f[fidx] += (double)(t1 - t0);
  pario_unlock(&r->lock);
}

void pario_lib_io(struct pario_rec *file, struct pario_rec *var, int kind, int64_t bytes, int64_t t0, int64_t t1) {
  if (bytes < 0) bytes = 0;
  if (var) pario_rec_io(var, kind, -1, bytes, NULL, t0, t1, 0);
  if (file) pario_rec_io(file, kind, -1, bytes, NULL, t0, t1, 0);
}

void pario_lib_meta(struct pario_rec *file, int fidx, struct pario_rec *var, int vidx, int64_t t0, int64_t t1) {
  if (file) pario_rec_meta(file, fidx, t0, t1);
  if (var) pario_rec_meta(var, vidx, t0, t1);
}

struct pario_rec *pario_lib_rec(const char *abs, const char *name, int module) {
  char key[PATH_MAX + 512];
  snprintf(key, sizeof key, "%s:%s", abs, name ? name : "?");
  return pario_rec_get(key, module);
}

/* ---- the log: which libraries the process had, and whether their calls were seen ---- */
/* Which of the probes the executable's own symbol table defines (a static link: the program
 * calls them directly, never through this library). Reads /proc/self/exe: ELF header, section
 * headers, the .symtab and its string table (absent from a stripped executable). */
static unsigned exe_defines(void) {
  unsigned found = 0;
  int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/exe", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat st;
  char *map = MAP_FAILED;
  if (syscall(SYS_fstat, fd, &st) == 0 && st.st_size > (off_t)sizeof(Elf64_Ehdr) && st.st_size < ((off_t)1 << 31))
    map = PARIO_REAL(mmap)(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  syscall(SYS_close, fd);
  if (map == MAP_FAILED) return 0;
  size_t size = (size_t)st.st_size;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
  if (!memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_shoff &&
      eh->e_shentsize == sizeof(Elf64_Shdr) && eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size) {
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + eh->e_shoff);
    for (int k = 0; k < eh->e_shnum; k++) {
      if (sh[k].sh_type != SHT_SYMTAB || sh[k].sh_link >= eh->e_shnum) continue;
      const Elf64_Shdr *str = &sh[sh[k].sh_link];
      if (sh[k].sh_offset + sh[k].sh_size > size || str->sh_offset + str->sh_size > size) continue;
      const Elf64_Sym *sym = (const Elf64_Sym *)(map + sh[k].sh_offset);
      size_t n = sh[k].sh_size / sizeof(Elf64_Sym);
      const char *names = map + str->sh_offset;
      for (size_t j = 0; j < n; j++) {
        if (sym[j].st_shndx == SHN_UNDEF || sym[j].st_name >= str->sh_size) continue;
        const char *nm = names + sym[j].st_name;
        for (int l = 0; l < PARIO_NUM_LIBS; l++)
          if (!strncmp(nm, probes[l], str->sh_size - sym[j].st_name) && !strcmp(nm, probes[l])) found |= 1u << l;
      }
    }
  }
  munmap(map, size);
  return found;
}

/* Loaded objects whose name contains `part` (the ADIOS2 core of a C++ program): the first one. */
struct part_find { const char *part; char out[PATH_MAX]; };
static int find_part(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct part_find *f = arg;
  if (!f->out[0] && info->dlpi_name && strstr(info->dlpi_name, f->part))
    snprintf(f->out, sizeof f->out, "%s", info->dlpi_name);
  return 0;
}

/* JSON text as is (raw) or as the inside of a string (escaped). */
static int put_as(char *buf, int cap, int len, const char *s, int escape) {
  for (; *s && len < cap - 2; s++) {
    if (escape && (*s == '"' || *s == '\\')) buf[len++] = '\\';
    buf[len++] = escape && (unsigned char)*s < 0x20 ? '?' : *s;
  }
  buf[len] = 0;
  return len;
}
#define put(buf, cap, len, s) put_as(buf, cap, len, s, 0)
#define put_esc(buf, cap, len, s) put_as(buf, cap, len, s, 1)

int pario_lib_state(char *buf, int cap, int from_signal) {
  unsigned in_exe = 0;
  int checked_exe = 0, len = 0, first = 1;
  len = put(buf, cap, len, "{");
  for (int l = 0; l < PARIO_NUM_LIBS; l++) {
    const char *state = NULL, *note = NULL;
    char object[PATH_MAX];
    snprintf(object, sizeof object, "%s", libs[l].object);
    if (atomic_load(&libs[l].called)) {
      state = "called";
    } else if (!from_signal) {
      void *p = lookup(probes[l]);
      struct link_map *lm = NULL;
      Dl_info di;
      if (p && dladdr1(p, &di, (void **)&lm, RTLD_DL_LINKMAP)) {
        int main_exe = lm && (!lm->l_name || !lm->l_name[0]);
        state = main_exe ? "static" : "loaded";
        snprintf(object, sizeof object, "%s", main_exe ? "the executable" : di.dli_fname ? di.dli_fname : "?");
      } else {
        if (!checked_exe) { in_exe = exe_defines(); checked_exe = 1; }
        if (in_exe & (1u << l)) {
          state = "static";
          snprintf(object, sizeof object, "the executable");
        } else if (l == PARIO_LIB_ADIOS2) {
          struct part_find f = {"libadios2_core", ""};
          dl_iterate_phdr(find_part, &f);
          if (f.out[0]) {
            state = "loaded";
            snprintf(object, sizeof object, "%s", f.out);
            note = "the C++ API (adios2::Engine) calls the ADIOS2 core directly: only C and Fortran API calls are seen";
          }
        }
      }
      if (state && !note)
        note = !strcmp(state, "static") ? "linked into the executable: its calls go straight to it and cannot be seen; "
                                          "link the shared library to profile them"
                                        : "loaded, but no call of its C API reached the profiler";
    }
    if (!state) continue;
    len = put(buf, cap, len, first ? "\"" : ",\"");
    first = 0;
    len = put(buf, cap, len, lib_names[l]);
    len = put(buf, cap, len, "\":{\"state\":\"");
    len = put(buf, cap, len, state);
    len = put(buf, cap, len, "\",\"object\":\"");
    len = put_esc(buf, cap, len, object);
    len = put(buf, cap, len, "\"");
    if (!libs[l].version[0] && strstr(object, ".so.")) /* no version call (ADIOS2's C API): the file's */
      snprintf(libs[l].version, sizeof libs[l].version, "%s", strstr(object, ".so.") + 4);
    if (libs[l].version[0]) {
      len = put(buf, cap, len, ",\"version\":\"");
      len = put_esc(buf, cap, len, libs[l].version);
      len = put(buf, cap, len, "\"");
    }
    if (note) {
      len = put(buf, cap, len, ",\"note\":\"");
      len = put_esc(buf, cap, len, note);
      len = put(buf, cap, len, "\"");
    }
    len = put(buf, cap, len, "}");
  }
  len = put(buf, cap, len, "}");
  return len;
}
