/* pario-engine --orphaned SPEC RESULT: the cleaner the orphan guard starts (guard.h) when the
 * front end died without ending the run. No MPI: it ends the launcher's session, as the front end
 * would have (SIGCONT and SIGTERM, SIGKILL after a grace period), then removes what the run made:
 * the cases' files and directories in the scratch directory (never an earlier run's, with reuse),
 * the front end's spec, result and status files and their directory, the MPI's shared-memory
 * segments and Open MPI's session directory of that launcher. Best effort, silent. */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/json_read.h"
#include "engine/guard.h"
#include "engine/spec.h"

enum { GRACE_MS = 3000, MAX_SHM = 256 };

static char *shm[MAX_SHM];
static int nshm;

static void pause_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* Signal every process of session sid (and its process group); how many still run. */
static int signal_session(pid_t sid, int sig) {
  int alive = 0;
  if (sig) kill(-sid, sig);
  DIR *d = opendir("/proc");
  if (!d) return 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char *end;
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0 || pid == getpid() || getsid((pid_t)pid) != sid) continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p || p[2] == 'Z') continue;
    alive++;
    if (sig) kill((pid_t)pid, sig);
  }
  closedir(d);
  return alive;
}

/* The /dev/shm files the session's processes map, made after `since` by this user: the MPI's own
 * segments, which it removes only at an orderly end (the front end's run/session.py does the same). */
static void collect_shm(pid_t sid, time_t since) {
  DIR *d = opendir("/proc");
  struct dirent *e;
  while (d && (e = readdir(d))) {
    char *end, path[64], line[4608];
    long pid = strtol(e->d_name, &end, 10);
    if (*end || pid <= 0 || getsid((pid_t)pid) != sid) continue;
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f)) {
      char *p = strstr(line, " /dev/shm/");
      struct stat st;
      if (!p) continue;
      p++;
      p[strcspn(p, "\n")] = 0;
      if (stat(p, &st) || st.st_uid != geteuid() || st.st_ctime < since) continue;
      int known = 0;
      for (int k = 0; k < nshm && !known; k++) known = !strcmp(shm[k], p);
      if (!known && nshm < MAX_SHM && (shm[nshm] = strdup(p))) nshm++;
    }
    if (f) fclose(f);
  }
  if (d) closedir(d);
}

/* End the launch: the launcher is the leader of its session (the front end started it so). 0: it
 * had ended, 1: SIGTERM ended it, 2: SIGKILL was needed. */
static int end_launch(pid_t launcher, unsigned long long start) {
  if (!pario_process_alive(launcher, start) && !signal_session(launcher, 0)) return 0;
  signal_session(launcher, SIGCONT);
  signal_session(launcher, SIGTERM);
  for (int waited = 0; waited < GRACE_MS; waited += 50) {
    if (!signal_session(launcher, 0)) return 1;
    pause_ms(50);
  }
  /* again at each look: during start-up the launcher may have forked a rank after a scan */
  for (int waited = 0; waited < GRACE_MS && signal_session(launcher, SIGKILL); waited += 50) pause_ms(50);
  return 2;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  if (flag == FTW_DP) rmdir(path);
  else unlink(path); /* files and symlinks themselves, never what a symlink points to */
  return 0;
}

static void remove_tree(const char *path) { nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* DIR/PREFIX.CASE.* of the cases this run wrote: files, and its own directories (ADIOS2 outputs
 * PREFIX.CASE.FILE/, metadata trees PREFIX.CASE.md/), as the front end's Scratch.cleanup does. */
static void remove_case_files(const pario_run *run) {
  DIR *d = opendir(run->dir);
  if (!d) return;
  struct dirent *e;
  char own[320], path[8192];
  while ((e = readdir(d))) {
    for (int k = 0; k < run->ncases; k++) {
      /* an earlier run's kept files; -E: the names carry no run id, the file may be the user's */
      if (run->cases[k].reuse || run->cases[k].use_existing) continue;
      int n = snprintf(own, sizeof own, "%s.%d.", run->prefix, k);
      if (strncmp(e->d_name, own, (size_t)n)) continue;
      const char *rest = e->d_name + n;
      snprintf(path, sizeof path, "%s/%s", run->dir, e->d_name);
      struct stat st;
      if (lstat(path, &st)) break;
      if (S_ISREG(st.st_mode)) unlink(path);
      else if (S_ISDIR(st.st_mode) && (!strcmp(rest, "md") || strspn(rest, "0123456789") == strlen(rest)))
        remove_tree(path);
      break;
    }
  }
  closedir(d);
  char probe[4400];
  snprintf(probe, sizeof probe, "%s/%s.writable", run->dir, run->prefix);
  unlink(probe);
  if (run->guard_rmdir) rmdir(run->dir); /* the front end made it: only when empty */
}

static void unlink_in(const char *dir, const char *name) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  unlink(path);
}

/* The front end's own files of this run: spec, result, status files, the launcher's pid file. */
static void remove_front_end_files(const pario_run *run, const char *spec, const char *result) {
  if (strcmp(result, "-")) {
    /* RESULT.tmp.PID: rank 0 writes the document there and renames it (common/json_write.c); killed
       before the rename (its fsync is slow on a loaded machine), it left one, and rmdir failed */
    char dir[4200], own[4200];
    snprintf(dir, sizeof dir, "%s", result);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    int n = snprintf(own, sizeof own, "%s.tmp", base);
    if (slash) *slash = 0;
    const char *where = !slash ? "." : dir[0] ? dir : "/";
    DIR *d = opendir(where);
    struct dirent *e;
    while (d && (e = readdir(d))) {
      if (strncmp(e->d_name, own, (size_t)n)) continue;
      const char *rest = e->d_name + n;
      if (!*rest || (*rest == '.' && rest[1] && strspn(rest + 1, "0123456789") == strlen(rest + 1)))
        unlink_in(where, e->d_name);
    }
    if (d) closedir(d);
    unlink(result);
  }
  if (run->status_dir[0]) {
    DIR *d = opendir(run->status_dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
      if (!strncmp(e->d_name, "rank.", 5)) unlink_in(run->status_dir, e->d_name);
    if (d) closedir(d);
    rmdir(run->status_dir);
  }
  unlink(spec);
  unlink_in(run->guard_dir, "launcher");
  unlink_in(run->guard_dir, "launcher.tmp");
  unlink_in(run->guard_dir, "orphaned");
  rmdir(run->guard_dir);
}

/* Open MPI's session directory of the launcher, which it leaves when it was killed or ended with its
 * ranks: $TMPDIR/ompi.HOST.UID/pid.PID (only after the launcher is gone). */
static void remove_ompi_session(pid_t launcher) {
  char host[256] = "", base[4400], mine[4500];
  const char *tmp = getenv("TMPDIR");
  gethostname(host, sizeof host - 1);
  snprintf(base, sizeof base, "%s/ompi.%s.%u", tmp && tmp[0] ? tmp : "/tmp", host, (unsigned)geteuid());
  snprintf(mine, sizeof mine, "%s/pid.%d", base, (int)launcher);
  struct stat st;
  if (!lstat(mine, &st) && S_ISDIR(st.st_mode)) remove_tree(mine);
  rmdir(base);
}

int pario_orphan_main(const char *spec_path, const char *result_path) {
  char *text = pario_read_file(spec_path);
  pario_run run;
  if (!text || pario_spec_parse(text, spec_path, &run)) {
    free(text);
    return 1;
  }
  free(text);
  char pidfile[4200];
  snprintf(pidfile, sizeof pidfile, "%s/launcher", run.guard_dir);
  long launcher = 0;
  unsigned long long start = 0;
  FILE *f = fopen(pidfile, "r");
  if (f) {
    if (fscanf(f, "%ld %llu", &launcher, &start) != 2) launcher = 0;
    fclose(f);
  }
  struct stat st;
  if (launcher > 0 && !stat(spec_path, &st)) collect_shm((pid_t)launcher, st.st_mtime - 1);
  if (launcher > 0) end_launch((pid_t)launcher, start);
  for (int k = 0; k < nshm; k++) unlink(shm[k]);
  remove_case_files(&run);
  remove_front_end_files(&run, spec_path, result_path);
  if (launcher > 0 && !pario_process_alive(launcher, start)) remove_ompi_session((pid_t)launcher);
  pario_spec_free(&run);
  return 0;
}
