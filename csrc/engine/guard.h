/* The orphan guard (schemas/README.md, section 6). The front end starts the launcher in a
 * session of its own and ends it when the run ends, is stopped by a signal or hangs; killed with
 * SIGKILL it can do none of that, and the ranks would go on writing until their next progress
 * line broke the launcher's pipe. So every rank on the front end's host watches it: the spec's
 * "guard" names it by pid, start time and boot id (a pid alone may be reused, and means nothing
 * on another host). The first rank to see it gone while its directory still exists (it removes
 * that directory when it ends in any other way) starts the cleaner, `pario-engine --orphaned SPEC
 * RESULT`, in a session of its own: it ends the launcher's session and removes the run's files.
 * The launcher's pid file may be missing or name an earlier launch (the front end died just after
 * starting this one): a rank led by a launcher whose command line names the spec writes it. */
#ifndef PARIO_ENGINE_GUARD_H
#define PARIO_ENGINE_GUARD_H

#include "engine/spec.h"

/* Start the watching thread when the spec has a guard whose process runs on this host; nothing
 * otherwise. result_path may be NULL (the settings launch). */
void pario_guard_start(const pario_run *run, const char *spec_path, const char *result_path);

/* Whether process pid with this start time (clock ticks since boot, /proc/PID/stat field 22)
 * runs (zombies do not). */
int pario_process_alive(long pid, unsigned long long start);

/* pario-engine --orphaned SPEC RESULT: end the launch and remove the run's files (orphan.c). */
int pario_orphan_main(const char *spec_path, const char *result_path);

#endif
