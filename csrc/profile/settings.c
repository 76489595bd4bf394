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
  const char *off = getenv("PARIO_PROFILE_DISABLE");
  return off && *off && strcmp(off, "0") != 0 ? -1 : 0;
}
