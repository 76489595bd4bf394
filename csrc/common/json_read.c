#include "common/json_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *p, *start;
  char *err;
  int errlen;
  int depth;
} parser;

static int fail(parser *ps, const char *what) {
  if (ps->err && !ps->err[0])
    snprintf(ps->err, (size_t)ps->errlen, "%s at byte %ld", what, (long)(ps->p - ps->start));
  return -1;
}

static void ws(parser *ps) {
  while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++;
}

static int value(parser *ps, pj_value *v);

static int utf8(char *out, unsigned cp) {
  if (cp < 0x80) { out[0] = (char)cp; return 1; }
  if (cp < 0x800) { out[0] = (char)(0xC0 | (cp >> 6)); out[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
  out[0] = (char)(0xE0 | (cp >> 12));
  out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[2] = (char)(0x80 | (cp & 0x3F));
  return 3;
}

static int string(parser *ps, char **out) {
  if (*ps->p != '"') return fail(ps, "expected a string");
  ps->p++;
  const char *q = ps->p;
  size_t cap = 0;
  while (*q && *q != '"') { if (*q == '\\' && q[1]) q++; q++; cap++; }
  if (!*q) return fail(ps, "unterminated string");
  char *s = malloc(cap * 3 + 1), *d = s;
  if (!s) return fail(ps, "out of memory");
  while (*ps->p != '"') {
    char c = *ps->p++;
    if (c != '\\') { *d++ = c; continue; }
    c = *ps->p++;
    switch (c) {
      case 'n': *d++ = '\n'; break;
      case 't': *d++ = '\t'; break;
      case 'r': *d++ = '\r'; break;
      case 'b': *d++ = '\b'; break;
      case 'f': *d++ = '\f'; break;
      case 'u': {
        unsigned cp = 0;
        for (int k = 0; k < 4; k++) {
          char h = *ps->p++;
          cp <<= 4;
          if (h >= '0' && h <= '9') cp |= (unsigned)(h - '0');
          else if (h >= 'a' && h <= 'f') cp |= (unsigned)(h - 'a' + 10);
          else if (h >= 'A' && h <= 'F') cp |= (unsigned)(h - 'A' + 10);
          else { free(s); return fail(ps, "bad \\u escape"); }
        }
        d += utf8(d, cp);
        break;
      }
      default: *d++ = c;
    }
  }
  ps->p++;
  *d = '\0';
  *out = s;
  return 0;
}

static int container(parser *ps, pj_value *v, int obj) {
  char close = obj ? '}' : ']';
  int cap = 0;
  v->t = obj ? PJ_OBJ : PJ_ARR;
  if (++ps->depth > 64) return fail(ps, "nesting too deep");
  ps->p++;
  ws(ps);
  if (*ps->p == close) { ps->p++; ps->depth--; return 0; }
  for (;;) {
    if (v->n == cap) {
      cap = cap ? cap * 2 : 8;
      pj_value *it = realloc(v->items, sizeof *it * (size_t)cap);
      if (!it) return fail(ps, "out of memory");
      v->items = it;
      if (obj) {
        char **k = realloc(v->keys, sizeof *k * (size_t)cap);
        if (!k) return fail(ps, "out of memory");
        v->keys = k;
      }
    }
    memset(&v->items[v->n], 0, sizeof v->items[0]);
    if (obj) {
      ws(ps);
      v->keys[v->n] = NULL;
      if (string(ps, &v->keys[v->n])) { v->n++; return -1; }
      ws(ps);
      if (*ps->p != ':') { v->n++; return fail(ps, "expected ':'"); }
      ps->p++;
    }
    int rc = value(ps, &v->items[v->n]);
    v->n++;
    if (rc) return rc;
    ws(ps);
    if (*ps->p == ',') { ps->p++; continue; }
    if (*ps->p == close) { ps->p++; ps->depth--; return 0; }
    return fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static int number(parser *ps, pj_value *v) {
  const char *s = ps->p;
  char *end;
  int is_int = 1;
  const char *q = s;
  if (*q == '-') q++;
  while ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' || *q == '-') {
    if (*q == '.' || *q == 'e' || *q == 'E') is_int = 0;
    q++;
  }
  v->t = PJ_NUM;
  errno = 0;
  v->d = strtod(s, &end);
  if (end == s) return fail(ps, "bad number");
  if (is_int) {
    v->i = strtoll(s, NULL, 10);
    v->is_int = errno != ERANGE;
  } else {
    v->i = (int64_t)v->d;
  }
  ps->p = end;
  return 0;
}

static int value(parser *ps, pj_value *v) {
  ws(ps);
  switch (*ps->p) {
    case '{': return container(ps, v, 1);
    case '[': return container(ps, v, 0);
    case '"': v->t = PJ_STR; return string(ps, &v->s);
    case 't': if (!strncmp(ps->p, "true", 4)) { v->t = PJ_BOOL; v->i = 1; ps->p += 4; return 0; } break;
    case 'f': if (!strncmp(ps->p, "false", 5)) { v->t = PJ_BOOL; v->i = 0; ps->p += 5; return 0; } break;
    case 'n': if (!strncmp(ps->p, "null", 4)) { v->t = PJ_NULL; ps->p += 4; return 0; } break;
    default:
      if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) return number(ps, v);
  }
  return fail(ps, "unexpected character");
}

static void release(pj_value *v) {
  free(v->s);
  for (int k = 0; k < v->n; k++) {
    release(&v->items[k]);
    if (v->keys) free(v->keys[k]);
  }
  free(v->items);
  free(v->keys);
}

void pario_json_free(pj_value *v) {
  if (!v) return;
  release(v);
  free(v);
}

pj_value *pario_json_parse(const char *text, char *err, int errlen) {
  parser ps = {text, text, err, errlen, 0};
  if (err && errlen) err[0] = '\0';
  pj_value *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  if (value(&ps, v) == 0) {
    ws(&ps);
    if (!*ps.p) return v;
    fail(&ps, "trailing characters");
  }
  pario_json_free(v);
  return NULL;
}

const pj_value *pario_json_get(const pj_value *obj, const char *key) {
  if (!obj || obj->t != PJ_OBJ) return NULL;
  for (int k = 0; k < obj->n; k++)
    if (!strcmp(obj->keys[k], key)) return &obj->items[k];
  return NULL;
}

char *pario_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 65536, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    len += n;
    if (len < cap - 1) break;
    cap *= 2;
    char *b = realloc(buf, cap);
    if (!b) { free(buf); buf = NULL; errno = ENOMEM; }
    else buf = b;
  }
  fclose(f);
  if (buf) buf[len] = '\0';
  return buf;
}
