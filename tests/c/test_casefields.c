/* The case-field table (csrc/engine/casefields.c): what the result writes back as a case's
 * "spec" reads back into the same case, and what it writes matches what was read. */
#include <string.h>

#include "check.h"
#include "common/json_read.h"
#include "common/json_write.h"
#include "engine/casefields.h"
#include "pario/errors.h"

static const char *const cases[] = {
    "{\"name\":\"a\",\"backend\":\"posix\",\"strategy\":\"fpp\",\"pattern\":\"segmented\",\"xfer\":4096,"
    "\"block\":8192,\"segments\":3,\"ops\":[\"write\",\"read\",\"verify\"],\"reps\":2,\"reorder\":-1,\"fsync\":true}",
    "{\"name\":\"b\",\"backend\":\"mpiio\",\"strategy\":\"nfiles\",\"nfiles\":2,\"pattern\":\"subarray\",\"ldims\":[4,"
    "8,2],"
    "\"xfer\":64,\"view\":1,\"collective\":true,\"ops\":[\"write\"],\"seed\":7,\"buffer_max\":65536,\"keep\":true}",
    "{\"name\":\"c\",\"backend\":\"hdf5\",\"strategy\":\"shared\",\"pattern\":\"random\",\"xfer\":4096,\"block\":4096,"
    "\"ops\":[\"read\"],\"reuse\":true,\"lib\":{\"alignment\":\"4k\",\"chunk\":\"block\",\"coll_metadata\":false,\"x\":"
    "3}}",
    "{\"name\":\"m\",\"workload\":\"metadata\",\"files_per_dir\":3,\"file_size\":100,\"depth\":2,\"branching\":4,"
    "\"shared_dir\":false,\"ops\":[\"create\",\"stat\",\"remove\"],\"reps\":2}",
};

static int parse(const char *text, pario_case *c) {
  char err[128];
  pj_value *v = pario_json_parse(text, err, sizeof err);
  CHECK(v != NULL, "JSON: %s", err);
  if (!v) return -1;
  int rc = pario_case_fields_parse(v, c);
  pario_json_free(v);
  return rc;
}

int main(void) {
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    pario_case a, b;
    CHECK(parse(cases[k], &a) == 0, "case %zu: %s", k, pario_err_msg());
    pario_jw j;
    pario_jw_init(&j);
    pario_jw_obj(&j, NULL);
    pario_case_fields_write(&j, &a);
    pario_jw_obj_end(&j);
    CHECK(parse(j.buf, &b) == 0, "case %zu written back: %s", k, pario_err_msg());
    CHECK(!memcmp(&a, &b, sizeof a), "case %zu: %s does not read back as what was read", k, j.buf);
    /* every key of the input is written back (these inputs hold no hints or precreated) */
    pj_value *in = pario_json_parse(cases[k], NULL, 0), *out = pario_json_parse(j.buf, NULL, 0);
    for (int i = 0; in && out && i < in->n; i++)
      CHECK(pario_json_get(out, in->keys[i]) != NULL, "case %zu: \"%s\" is not written back", k, in->keys[i]);
    pario_json_free(in);
    pario_json_free(out);
    pario_jw_free(&j);
  }
  pario_case c;
  CHECK(parse("{\"name\":\"x\",\"backend\":\"posix\",\"pattern\":\"segmented\",\"ops\":[\"write\"]}", &c) ==
                PARIO_E_SPEC &&
            strstr(pario_err_msg(), "missing \"strategy\""),
        "strategy is required: %s", pario_err_msg());
  CHECK(parse("{\"name\":\"x\",\"backend\":\"posix\",\"strategy\":\"fpp\",\"pattern\":\"spiral\",\"ops\":[\"write\"]}",
              &c) == PARIO_E_SPEC &&
            strstr(pario_err_msg(), "unknown pattern"),
        "%s", pario_err_msg());
  CHECK(parse("{\"name\":\"x\",\"workload\":\"metadata\",\"ops\":[\"write\"]}", &c) == PARIO_E_SPEC &&
            strstr(pario_err_msg(), "ops must be a list of create"),
        "%s", pario_err_msg());
  CHECK(parse("{\"name\":\"x\",\"workload\":\"metadata\",\"ops\":[\"create\"]}", &c) == 0 && c.md.branching == 1 &&
            c.md.shared_dir == 1 && c.reps == 1 && c.pat.seed == 1,
        "metadata defaults");
  return CHECK_DONE();
}
