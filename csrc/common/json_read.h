/* A small JSON reader (DOM) for the engine's spec. Integers are kept exact (int64). */
#ifndef PARIO_JSON_READ_H
#define PARIO_JSON_READ_H

#include <stdint.h>

typedef enum { PJ_NULL, PJ_BOOL, PJ_NUM, PJ_STR, PJ_ARR, PJ_OBJ } pj_type;

typedef struct pj_value {
  pj_type t;
  int is_int;        /* PJ_NUM written without fraction or exponent */
  int64_t i;         /* PJ_NUM (exact when is_int), PJ_BOOL */
  double d;          /* PJ_NUM */
  char *s;           /* PJ_STR */
  int n;             /* PJ_ARR, PJ_OBJ: number of items */
  struct pj_value *items;
  char **keys;       /* PJ_OBJ */
} pj_value;

/* Parse text; NULL on error with a message in err (position included). */
pj_value *pario_json_parse(const char *text, char *err, int errlen);
void pario_json_free(pj_value *v);
/* Member of an object, or NULL. */
const pj_value *pario_json_get(const pj_value *obj, const char *key);
/* Read a whole file into a NUL-terminated buffer (caller frees), or NULL with errno set. */
char *pario_read_file(const char *path);

#endif
