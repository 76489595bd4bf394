#include "backends/mpiinfo.h"

MPI_Info pario_hints_info(const pario_case *cs) {
  MPI_Info info = MPI_INFO_NULL;
  if (!cs->nhints) return info;
  MPI_Info_create(&info);
  for (int k = 0; k < cs->nhints; k++) MPI_Info_set(info, cs->hint_key[k], cs->hint_val[k]);
  return info;
}

void pario_info_take(MPI_Info *info, pario_info *out, const char *source) {
  int nkeys = 0;
  out->n = 0;
  out->source = source;
  MPI_Info_get_nkeys(*info, &nkeys);
  for (int k = 0; k < nkeys && out->n < PARIO_MAX_HINTS; k++) {
    int flag = 0;
    MPI_Info_get_nthkey(*info, k, out->key[out->n]);
    MPI_Info_get(*info, out->key[out->n], 255, out->val[out->n], &flag);
    if (flag) out->n++;
  }
  MPI_Info_free(info);
}
