/* A small streaming JSON writer into a growable memory buffer (no allocation per value beyond
 * buffer growth). Used for the engine's result document and the profiler's log. */
#ifndef PARIO_JSON_WRITE_H
#define PARIO_JSON_WRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  char *buf;
  size_t len, cap;
  int depth;
  int need_comma[64]; /* per nesting level: a value was already written */
  int failed;         /* out of memory: further writes are ignored */
} pario_jw;

void pario_jw_init(pario_jw *w);
void pario_jw_free(pario_jw *w);
/* Containers; key may be NULL inside arrays. */
void pario_jw_obj(pario_jw *w, const char *key);
void pario_jw_obj_end(pario_jw *w);
void pario_jw_arr(pario_jw *w, const char *key);
void pario_jw_arr_end(pario_jw *w);
/* Values; key NULL inside arrays. Doubles that are not finite are written as null. */
void pario_jw_str(pario_jw *w, const char *key, const char *val);
void pario_jw_int(pario_jw *w, const char *key, int64_t val);
void pario_jw_uint(pario_jw *w, const char *key, uint64_t val);
void pario_jw_dbl(pario_jw *w, const char *key, double val);
void pario_jw_bool(pario_jw *w, const char *key, int val);
void pario_jw_null(pario_jw *w, const char *key);
/* Insert already-serialized JSON as a value. */
void pario_jw_raw(pario_jw *w, const char *key, const char *json);
/* Write the buffer to path atomically: path.tmp.PID, fsync, rename. Returns 0 or a PARIO_E_ code. */
int pario_jw_save(const pario_jw *w, const char *path);

#endif
