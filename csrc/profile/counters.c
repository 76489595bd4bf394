/* Names, kinds and merge operations of every counter, generated from include/pario/counters.h. */
#include <stddef.h>

#include "profile/profile.h"

#define STR_I(name, kind, op, doc) #name,
#define KIND_I(name, kind, op, doc) #kind,
#define OP_I(name, kind, op, doc) PARIO_MERGE_##op,
#define NONE(name, kind, op, doc)

#define TABLES(ID, lname, LIST)                                                         \
  static const char *ID##_i_names[] = {LIST(STR_I, NONE)};                              \
  static const char *ID##_f_names[] = {LIST(NONE, STR_I)};                              \
  static const char *ID##_i_kinds[] = {LIST(KIND_I, NONE)};                             \
  static const char *ID##_f_kinds[] = {LIST(NONE, KIND_I)};                             \
  static const int ID##_i_ops[] = {LIST(OP_I, NONE)};                                   \
  static const int ID##_f_ops[] = {LIST(NONE, OP_I)};
PARIO_MODULES(TABLES)

struct modtab {
  const char *name;
  int ni, nf;
  const char **inames, **fnames, **ikinds, **fkinds;
  const int *iops, *fops;
};

static const struct modtab mods[PARIO_NUM_MODULES] = {
#define ROW(ID, lname, LIST)                                                              \
  [PARIO_MOD_##ID] = {#lname, PARIO_##ID##_NUM_I, PARIO_##ID##_NUM_F, ID##_i_names,       \
                      ID##_f_names, ID##_i_kinds, ID##_f_kinds, ID##_i_ops, ID##_f_ops},
    PARIO_MODULES(ROW)
#undef ROW
};

/* Every module must fit the shared record arrays. */
#define FITS(ID, lname, LIST)                                                          \
  _Static_assert(PARIO_##ID##_NUM_I <= PARIO_MAX_I, #ID " has too many integer counters"); \
  _Static_assert(PARIO_##ID##_NUM_F <= PARIO_MAX_F, #ID " has too many float counters");
PARIO_MODULES(FITS)

int pario_num_i(int m) { return mods[m].ni; }
int pario_num_f(int m) { return mods[m].nf; }
const char *pario_module_name(int m) { return mods[m].name; }
const char *pario_counter_name(int m, int isf, int k) { return isf ? mods[m].fnames[k] : mods[m].inames[k]; }
const char *pario_counter_kind(int m, int isf, int k) { return isf ? mods[m].fkinds[k] : mods[m].ikinds[k]; }
int pario_counter_op(int m, int isf, int k) { return isf ? mods[m].fops[k] : mods[m].iops[k]; }
