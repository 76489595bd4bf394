/* The fields of a case in the spec (read by spec.c) and in the result's echo of it (written by
 * result.c): one table, two walks (casefields.c). */
#ifndef PARIO_ENGINE_CASEFIELDS_H
#define PARIO_ENGINE_CASEFIELDS_H

#include "common/json_read.h"
#include "common/json_write.h"
#include "pario/case.h"

/* Read case object o into c (zeroed first; defaults for what o leaves out). The values are read,
 * not yet checked against each other (spec.c does). 0 or PARIO_E_SPEC. */
int pario_case_fields_parse(const pj_value *o, pario_case *c);
/* Write c's fields as members of the current JSON object (the result's "spec"). */
void pario_case_fields_write(pario_jw *j, const pario_case *c);

#endif
