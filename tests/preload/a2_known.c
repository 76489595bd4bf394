/* ADIOS2 (C API) with known calls (tests/python/test_profile_libs.py). One BP5 output with
 * NumAggregators=1; per rank, NSTEPS steps (begin_step/end_step), each putting:
 *   "field" a global array of ROW*size doubles, the rank's ROW (deferred, adios2_put);
 *   "step"  a scalar int, by name and in sync mode (adios2_put_by_name, rank 0 only).
 * then one adios2_perform_puts before the last end_step, and adios2_close. */
#include <adios2_c.h>
#include <mpi.h>

#define NSTEPS 3
#define ROW 1000

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  adios2_adios *adios = adios2_init_mpi(MPI_COMM_WORLD);
  adios2_io *io = adios2_declare_io(adios, "out");
  adios2_set_engine(io, "BP5");
  adios2_set_parameter(io, "NumAggregators", "1");
  size_t shape[1] = {(size_t)ROW * size}, start[1] = {(size_t)rank * ROW}, count[1] = {ROW};
  adios2_variable *field = adios2_define_variable(io, "field", adios2_type_double, 1, shape, start, count,
                                                  adios2_constant_dims_true);
  adios2_define_variable(io, "step", adios2_type_int32_t, 0, NULL, NULL, NULL, adios2_constant_dims_true);
  adios2_engine *e = adios2_open(io, argv[1], adios2_mode_write);
  static double data[ROW];
  for (int s = 0; s < NSTEPS; s++) {
    adios2_step_status status;
    adios2_begin_step(e, adios2_step_mode_append, -1.0f, &status);
    adios2_put(e, field, data, adios2_mode_deferred);
    if (rank == 0) adios2_put_by_name(e, "step", &s, adios2_mode_sync);
    if (s == NSTEPS - 1) adios2_perform_puts(e);
    adios2_end_step(e);
  }
  adios2_close(e);
  adios2_finalize(adios);
  MPI_Finalize();
  return 0;
}
