/* pario-engine: reads one spec, runs its cases, writes one result document.
 * See schemas/README.md for the invocation, progress lines and exit codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/json_read.h"
#include "common/json_write.h"
#include "common/log.h"
#include "engine/groups.h"
#include "engine/guard.h"
#include "engine/listing.h"
#include "engine/metadata.h"
#include "engine/phases.h"
#include "engine/placement.h"
#include "engine/probe.h"
#include "engine/reduce.h"
#include "engine/result.h"
#include "engine/settings_open.h"
#include "engine/spec.h"
#include "engine/status.h"
#include "engine/timing.h"
#include "pario/backend.h"
#include "pario/errors.h"

static pario_result res;
static const char *result_path;
static int unsaved; /* the last rewrite of the document failed (rank 0): exit 3 */
static int saved;   /* a rewrite succeeded: a later failure is news, said on stderr */

/* Rewrite the result document now (rank 0): at the start, after every phase, at the end. */
static void checkpoint(void) {
  if (!result_path || !res.world || res.world->rank != 0) return;
  unsaved = pario_result_save(&res, result_path) != 0;
  if (unsaved && saved) pario_log(PARIO_LOG_ERROR, "%s", pario_err_msg());
  saved |= !unsaved;
}

/* schemas/README.md: 3 when the result document could not be written, whatever the run did
 * (the caller has nothing to read); else 2 for a spec the engine refused, 1 for a failed run. */
static int exit_code(int rc) {
  if (unsaved) return 3;
  return rc == PARIO_E_SPEC || rc == PARIO_E_NOTBUILT ? 2 : rc ? 1 : 0;
}

static void phase_done(void *arg) { checkpoint(); }

/* A library left a file open because closing it could hang (pario_backend_left_open): it must not
 * be called again, and MPI_Finalize would (HDF5 closes its files there). The result document is
 * written (rank 0 reaches the reduction after its last checkpoint): end the job here. */
static void end_if_left_open(int rank, int rc) {
  int mine = pario_backend_open_left() != NULL, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (!any) return;
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (rank == 0)
    fprintf(stderr, "pario-engine: %s; the job ends with MPI_Abort\n",
            mine ? pario_backend_open_left() : "another rank's library left a file open (closing it could hang)");
  fflush(NULL);
  if (me == 0) MPI_Abort(MPI_COMM_WORLD, exit_code(rc) ? exit_code(rc) : 1);
  MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 0's abort ends this rank (one abort, one message) */
  _exit(exit_code(rc) ? exit_code(rc) : 1); /* an MPI whose abort returned: still no MPI_Finalize */
}

/* Rank 0 reads the spec and broadcasts it, so it need not be on a shared file system. */
static int load_spec(const char *path, int rank, pario_run *run) {
  char *text = NULL;
  long len = 0;
  if (rank == 0) {
    text = pario_read_file(path);
    len = text ? (long)strlen(text) : -1;
  }
  MPI_Bcast(&len, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  if (len < 0) { /* rank 0 may run on another node than pario, whose /tmp is its own */
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int hlen = 0;
    MPI_Get_processor_name(host, &hlen);
    return pario_err(PARIO_E_SPEC, "cannot read spec %s on %s, where rank 0 runs: run pario from a directory "
                     "every node of the job sees (a shared file system, not a node's own /tmp)", path,
                     host[0] ? host : "its node");
  }
  if (rank != 0 && !(text = malloc((size_t)len + 1))) return pario_err(PARIO_E_NOMEM, "out of memory");
  MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, MPI_COMM_WORLD);
  int rc = pario_spec_parse(text, path, run);
  free(text);
  return rc;
}

static void fail(int rc) {
  res.err_code = rc;
  snprintf(res.err_msg, sizeof res.err_msg, "%s", pario_err_msg()[0] ? pario_err_msg() : pario_err_text(rc));
}

/* --settings SPEC: the untimed settings opens only (settings_open.c); errors on stderr. */
static int settings_main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  pario_world world;
  pario_run run;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pario_log_set_rank(rank);
  int rc = pario_world_init(&world);
  if (!rc && (rc = pario_launch_check(world.nranks)) && getenv("SLURM_PROCID") && atoi(getenv("SLURM_PROCID")))
    rank = -1; /* every task is a rank 0 alone: the first task alone speaks */
  if (!rc) rc = load_spec(argv[2], rank, &run);
  if (!rc) pario_guard_start(&run, argv[2], NULL);
  if (!rc) {
    rc = pario_settings_run(&run, &world);
    pario_spec_free(&run);
  }
  if (rc && rank == 0) fprintf(stderr, "pario-engine: %s\n", pario_err_msg());
  pario_world_free(&world);
  MPI_Finalize();
  return rc == PARIO_E_SPEC || rc == PARIO_E_NOTBUILT ? 2 : rc ? 1 : 0;
}

/* --check SPEC: the spec check alone, without MPI (nothing is opened or written): 0 when the engine
 * would run the spec, 2 and one line on stderr when it would refuse it. The front end runs it
 * before every launch, so that nothing is refused after mpirun started. */
static int check_main(const char *path) {
  pario_run run = {0};
  char *text = pario_read_file(path);
  int rc = text ? pario_spec_parse(text, path, &run) : pario_err(PARIO_E_SPEC, "cannot read spec %s", path);
  free(text);
  pario_spec_free(&run);
  if (rc) fprintf(stderr, "pario-engine: %s\n", pario_err_msg());
  return rc == PARIO_E_SPEC || rc == PARIO_E_NOTBUILT ? 2 : rc ? 1 : 0;
}

/* --mpi-library: the first line of MPI_Get_library_version, without launching: the front end
 * compares it with the launcher's MPI before the first launch (an engine of another MPI runs as
 * singletons). MPI 4.0 allows the call before MPI_Init (Open MPI 4.1 and MPICH 4.0 answer); an MPI
 * older than 3.0 lacks it, and one whose call fails says nothing: exit 0, and pario skips the check. */
static int mpi_library_main(void) {
#if MPI_VERSION >= 3
  char text[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {0};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS || len <= 0) return 0;
  text[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = 0;
  text[strcspn(text, "\n")] = 0;
  if (text[0]) printf("%s\n", text);
#endif
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--version")) {
    printf("pario-engine %s\n", PARIO_VERSION);
    return 0;
  }
  if (argc == 2 && !strcmp(argv[1], "--list")) return pario_list_backends();
  if (argc == 2 && !strcmp(argv[1], "--mpi-library")) return mpi_library_main();
  if (argc >= 3 && argc % 2 == 1 && !strcmp(argv[1], "--probe")) {
    int mib = 64, streams = 1;
    for (int k = 3; k + 1 < argc; k += 2) {
      if (!strcmp(argv[k], "--mib")) mib = atoi(argv[k + 1]);
      else if (!strcmp(argv[k], "--streams")) streams = atoi(argv[k + 1]);
      else argc = 0; /* an unknown option: the usage line below */
    }
    if (argc == 0) {
      fprintf(stderr, "usage: pario-engine --probe DIR [--mib M] [--streams N]\n");
      return 2;
    }
    int rc = pario_probe(argv[2], mib > 0 ? mib : 64, streams);
    if (rc) fprintf(stderr, "pario-engine: %s\n", pario_err_msg());
    return rc ? 1 : 0;
  }
  if (argc == 3 && !strcmp(argv[1], "--check")) return check_main(argv[2]);
  if (argc == 4 && !strcmp(argv[1], "--orphaned")) return pario_orphan_main(argv[2], argv[3]);
  int settings = argc == 3 && !strcmp(argv[1], "--settings");
  if (argc != 3) {
    fprintf(stderr,
            "usage: mpirun -n N pario-engine SPEC.json RESULT.json | mpirun -n N pario-engine --settings SPEC.json"
            " | pario-engine --check SPEC.json | --list | --mpi-library"
            " | --probe DIR [--mib M] [--streams N] | --version\n");
    return 2;
  }
  if (settings) return settings_main(argc, argv);
  MPI_Init(&argc, &argv);
  pario_world world;
  pario_run run;
  int rank, len = 0, v, sv;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pario_log_set_rank(rank);
  result_path = argv[2];
  res.err_rank = res.err_case = -1;
  res.status = "running";
  pario_wallclock_iso(res.started, sizeof res.started);
  MPI_Get_library_version(res.mpi_library, &len);
  while (len > 0 && (res.mpi_library[len - 1] == '\n' || res.mpi_library[len - 1] == ' ')) res.mpi_library[--len] = 0;
  MPI_Get_version(&v, &sv);
  snprintf(res.mpi_standard, sizeof res.mpi_standard, "%d.%d", v, sv);

  int rc = pario_world_init(&world);
  res.world = &world;
  if (!rc && (rc = pario_launch_check(world.nranks)) && getenv("SLURM_PROCID") && atoi(getenv("SLURM_PROCID"))) {
    result_path = NULL; /* every task is a rank 0 alone: the first task alone writes and speaks */
    rank = -1;
  }
  if (!rc) rc = load_spec(argv[1], rank, &run);
  pario_placement place;
  memset(&place, 0, sizeof place);
  if (!rc) rc = pario_placement_init(&place, &world);
  res.placement = &place;
  if (rc) {
    fail(rc);
    res.status = "failed";
    checkpoint();
    if (rank == 0) fprintf(stderr, "pario-engine: %s\n", res.err_msg);
    MPI_Finalize();
    return exit_code(rc);
  }
  res.run = &run;
  pario_guard_start(&run, argv[1], result_path);
  pario_clock_sync(MPI_COMM_WORLD, &res.clock_offset_max);
  pario_status_open(run.status_dir, rank);
  pario_hooks hooks = {.phase_done = phase_done};
  for (int k = 0; k < run.ncases; k++) hooks.steps += run.cases[k].reps * run.cases[k].nops;
  res.cases = calloc((size_t)run.ncases, sizeof *res.cases);
  if (rank == 0) {
    char line[128];
    snprintf(line, sizeof line, "{\"event\":\"start\",\"ncases\":%d,\"steps\":%d,\"ranks\":%d}", run.ncases, hooks.steps, world.nranks);
    pario_progress(line);
  }
  checkpoint(); /* a run that dies before its first phase still leaves a document */
  /* nowhere to write the result: say so now, before hours of measurements that would be lost */
  MPI_Bcast(&unsaved, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (unsaved) {
    char why[512];
    snprintf(why, sizeof why, "%s", rank == 0 ? pario_err_msg() : "see rank 0");
    rc = pario_err(PARIO_E_IO, "the result document cannot be written (%s); give a writable path", why);
    fail(rc);
  }
  for (int k = 0; k < run.ncases && !rc; k++) {
    res.cases[k].index = k;
    res.ncases = k + 1;
    rc = run.cases[k].workload == PARIO_WL_METADATA ? pario_md_run(&run, k, &world, &res.cases[k], &hooks)
                                                    : pario_data_run(&run, k, &world, &res.cases[k], &hooks);
    if (rc) {
      fail(rc);
      res.err_case = k;
    }
    checkpoint();
  }
  int any = 0;
  for (int k = 0; k < res.ncases; k++) any |= res.cases[k].nphases > 0;
  res.status = !rc ? "complete" : any ? "partial" : "failed";
  checkpoint();
  if (rank == 0) {
    char line[64];
    snprintf(line, sizeof line, "{\"event\":\"done\",\"status\":\"%s\"}", res.status);
    pario_progress(line);
    if (rc) fprintf(stderr, "pario-engine: %s\n", res.err_msg);
  }
  end_if_left_open(rank, rc);
  for (int k = 0; k < res.ncases; k++) pario_case_rec_free(&res.cases[k]);
  free(res.cases);
  pario_placement_free(&place);
  pario_spec_free(&run);
  pario_world_free(&world);
  MPI_Finalize();
  return exit_code(rc);
}
