/* ADIOS2 program of the advise corpus for the library-level rules (issue 29): each rank puts its
 * 1 MiB slab (131,072 doubles) of a global array "x" in each of STEPS steps of one BP5 output
 * DIR/out.bp (deferred puts, written at end_step).
 *
 *   a2_cases MODE DIR [STEPS]        (STEPS: default 4)
 *
 * default    no aggregation parameter: BP5 aggregates to one writer per node (TwoLevelShm), one
 *            data subfile per node
 * per-rank   NumAggregators = the number of ranks: every rank writes its own data subfile */
#include <adios2_c.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (131072)

static void die(const char *what) {
  fprintf(stderr, "a2_cases: %s failed\n", what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || (strcmp(argv[1], "default") && strcmp(argv[1], "per-rank"))) die("usage: a2_cases default|per-rank DIR [STEPS]");
  int steps = argc > 3 ? atoi(argv[3]) : 4;
  if (steps < 1) die("STEPS");
  char path[4096], ranks[16];
  snprintf(path, sizeof path, "%s/out.bp", argv[2]);
  snprintf(ranks, sizeof ranks, "%d", size);
  adios2_adios *adios = adios2_init_mpi(MPI_COMM_WORLD);
  adios2_io *io = adios2_declare_io(adios, "out");
  if (!adios || !io || adios2_set_engine(io, "BP5")) die("adios2_declare_io");
  if (argv[1][0] == 'p' && adios2_set_parameter(io, "NumAggregators", ranks)) die("adios2_set_parameter");
  size_t shape[1] = {(size_t)N * size}, start[1] = {(size_t)N * rank}, count[1] = {N};
  adios2_variable *x = adios2_define_variable(io, "x", adios2_type_double, 1, shape, start, count,
                                              adios2_constant_dims_true);
  adios2_engine *e = adios2_open(io, path, adios2_mode_write);
  if (!x || !e) die("adios2_open");
  double *buf = malloc(N * sizeof *buf);
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < N; i++) buf[i] = rank + s + i * 1e-6;
    adios2_step_status status;
    if (adios2_begin_step(e, adios2_step_mode_append, -1.0f, &status) || adios2_put(e, x, buf, adios2_mode_deferred) ||
        adios2_end_step(e))
      die("a step");
  }
  if (adios2_close(e)) die("adios2_close");
  free(buf);
  adios2_finalize(adios);
  MPI_Finalize();
  return 0;
}
