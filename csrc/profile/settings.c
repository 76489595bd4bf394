/* What the profiler was told (the PARIO_PROFILE_* environment) and whether it is recording. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/profile.h"

atomic_int pario_active;
struct pario_settings pario_cfg;

static size_t env_size(const char *name, size_t dflt) {
  const char *v = getenv(name);
  if (!v || !*v) return dflt;
  char *end;
  double x = strtod(v, &end);
  if (x <= 0) return dflt;
  double mul = 1024.0 * 1024; /* plain numbers are MiB */
  if (*end == 'k' || *end == 'K') mul = 1024;
  else if (*end == 'g' || *end == 'G') mul = 1024.0 * 1024 * 1024;
  else if (*end == 'b' || *end == 'B') mul = 1;
  return (size_t)(x * mul);
}

/* The MPI runtime's own files: Open MPI 4/5 shared memory (the vader BTL, smsc) and session
 * directories under $TMPDIR, OMPIO's shared-file-pointer lock test files next to the program's
 * file, PMIx stores, MPICH and Intel MPI shared memory. */
static void default_runtime(void) {
  static const char *const fixed = "/dev/shm/vader_segment.*:/dev/shm/sm_segment.*:/dev/shm/pmix*:"
                                   "/dev/shm/mpich_shar_tmp*:/dev/shm/shm-col-space-*:/dev/shm/Intel_MPI_*:"
                                   "*/pmix_dstor_*:*.locktest.*";
  static const char *const under_tmp[] = {"ompi.*", "prte.*", "pmix*", ".pmix*"};
  size_t n = (size_t)snprintf(pario_cfg.runtime, sizeof pario_cfg.runtime, "%s", fixed);
  const char *tmp = getenv("TMPDIR");
  for (int d = 0; d < 2; d++) {
    const char *dir = d == 0 ? "/tmp" : tmp;
    if (d == 1 && (!tmp || !*tmp || strchr(tmp, ':') || !strcmp(tmp, "/tmp") || !strcmp(tmp, "/tmp/"))) break;
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dl--;
    for (size_t k = 0; k < sizeof under_tmp / sizeof *under_tmp && n < sizeof pario_cfg.runtime; k++)
      n += (size_t)snprintf(pario_cfg.runtime + n, sizeof pario_cfg.runtime - n, ":%.*s/%s", (int)dl, dir,
                            under_tmp[k]);
  }
}

int pario_settings_read(void) {
  const char *v = getenv("PARIO_PROFILE_DIR");
  if (v && *v) snprintf(pario_cfg.dir, sizeof pario_cfg.dir, "%s", v);
  else snprintf(pario_cfg.dir, sizeof pario_cfg.dir, "/tmp/pario-profile-%u", (unsigned)getuid());
  pario_cfg.mem_bound = env_size("PARIO_PROFILE_MEM", 64u << 20);
  if (pario_cfg.mem_bound < (1u << 20)) pario_cfg.mem_bound = 1u << 20;
  v = getenv("PARIO_PROFILE_TRACE");
  pario_cfg.trace = v && *v && strcmp(v, "0") != 0;
  v = getenv("PARIO_PROFILE_MEMALIGN");
  pario_cfg.mem_align = v && atoi(v) > 0 ? atoi(v) : 8;
  v = getenv("PARIO_PROFILE_VERBOSE");
  pario_cfg.verbose = v && *v && strcmp(v, "0") != 0;
  v = getenv("PARIO_PROFILE_EXCLUDE");
  snprintf(pario_cfg.exclude, sizeof pario_cfg.exclude, "%s",
           v ? v : "/proc/:/sys/:/dev/:/etc/:/usr/:/lib/:/lib64/:/bin/:/sbin/:/boot/:/run/");
  v = getenv("PARIO_PROFILE_RUNTIME");
  if (v) snprintf(pario_cfg.runtime, sizeof pario_cfg.runtime, "%s", v);
  else default_runtime();
  v = getenv("PARIO_PROFILE_RUNTIME_FILES");
  pario_cfg.runtime_files = v && *v && strcmp(v, "0") != 0;
  const char *off = getenv("PARIO_PROFILE_DISABLE");
  return off && *off && strcmp(off, "0") != 0 ? -1 : 0;
}
