/* The JSON writer and reader agree, escape what they must, and reject broken input. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/json_read.h"
#include "common/json_write.h"

int main(void) {
  pario_jw w;
  pario_jw_init(&w);
  pario_jw_obj(&w, NULL);
  pario_jw_str(&w, "s", "a\"b\\c\n\x01");
  pario_jw_uint(&w, "big", 18446744073709551615ULL);
  pario_jw_int(&w, "neg", -5);
  pario_jw_dbl(&w, "d", 0.25);
  pario_jw_dbl(&w, "nan", 0.0 / 0.0);
  pario_jw_arr(&w, "a");
  pario_jw_int(&w, NULL, 1);
  pario_jw_bool(&w, NULL, 1);
  pario_jw_null(&w, NULL);
  pario_jw_arr_end(&w);
  pario_jw_obj_end(&w);
  char err[128];
  pj_value *v = pario_json_parse(w.buf, err, sizeof err);
  CHECK(v != NULL, "parse own output: %s", err);
  if (v) {
    const pj_value *s = pario_json_get(v, "s");
    CHECK(s && s->t == PJ_STR && !strcmp(s->s, "a\"b\\c\n\x01"), "string roundtrip");
    const pj_value *neg = pario_json_get(v, "neg");
    CHECK(neg && neg->is_int && neg->i == -5, "int");
    const pj_value *d = pario_json_get(v, "d");
    CHECK(d && !d->is_int && d->d == 0.25, "double");
    CHECK(pario_json_get(v, "nan")->t == PJ_NULL, "nan becomes null");
    const pj_value *a = pario_json_get(v, "a");
    CHECK(a && a->t == PJ_ARR && a->n == 3 && a->items[1].t == PJ_BOOL, "array");
    pario_json_free(v);
  }
  const char *bad[] = {"{", "{\"a\":}", "[1,]x", "{\"a\" 1}", "\"open", "[1] 2", "nul"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    pj_value *b = pario_json_parse(bad[k], err, sizeof err);
    CHECK(b == NULL && err[0], "reject %s", bad[k]);
    pario_json_free(b);
  }
  pj_value *big = pario_json_parse("{\"x\": 9007199254740993}", err, sizeof err);
  CHECK(big && pario_json_get(big, "x")->i == 9007199254740993LL, "64-bit integers stay exact");
  pario_json_free(big);
  pario_jw_free(&w);
  return CHECK_DONE();
}
