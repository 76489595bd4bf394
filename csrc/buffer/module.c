/* The buffer as a module of the interposition layer (intercept.h): it takes the write-side calls
 * over at start, writes every buffer out before fork (so a child never writes its parent's bytes
 * a second time), inside MPI_Finalize, and whenever the image stops (exit, _exit, exec,
 * SIGTERM/SIGINT/SIGHUP), and writes its stats file then. After a stop, calls are written
 * through until the image resumes (a handled signal, a failed exec). */
#include <sys/syscall.h>
#include <unistd.h>

#include "buffer/buffer.h"

static int start(void) {
  if (pario_buf_settings_read() != 0) return -1;
  if (pario_buf_files_init() != 0) {
    static const char m[] = "pario-preload: cannot map the buffer's tables; the buffer is off\n";
    syscall(SYS_write, 2, m, sizeof m - 1);
    return -1;
  }
  pario_buf_timing = pario_buf_cfg.stats_dir[0] != 0;
  pario_buf_take_posix();
  pario_buf_take_stdio();
  pario_buf_adopt_stdout();
  return 0;
}

static void fork_prepare(void) {
  pario_buf_streams_flush(WHY_FORK);
  pario_buf_lock_all();
}
static void fork_parent(void) { pario_buf_unlock_all(0); }
static void fork_child(void) {
  pario_buf_unlock_all(1);
  pario_buf_stats_reset();
}

static void mpi_finalize(void) {
  pario_buf_flush_all(WHY_STOP, 0);
  pario_buf_stats_write("finalize", 0);
}

static void stop(const char *reason, int partial, int from_signal) {
  atomic_store(&pario_buf_stopped, 1);
  pario_buf_streams_flush(WHY_STOP);
  pario_buf_flush_all(WHY_STOP, from_signal);
  pario_buf_stats_write(reason, partial);
}

static void resume(void) { atomic_store(&pario_buf_stopped, 0); }

static const struct pario_intercept_module buffer = {
    .name = "buffer",
    .start = start,
    .fork_prepare = fork_prepare,
    .fork_parent = fork_parent,
    .fork_child = fork_child,
    .mpi_finalize = mpi_finalize,
    .stop = stop,
    .resume = resume,
};

__attribute__((constructor(PARIO_REGISTER_PRIORITY))) static void register_buffer(void) {
  pario_intercept_register(&buffer);
}
