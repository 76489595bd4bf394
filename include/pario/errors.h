/* The one list of error codes. Functions return 0 or a negative code from it; only main()s exit. */
#ifndef PARIO_ERRORS_H
#define PARIO_ERRORS_H

#define PARIO_ERRORS(X)                                                    \
  X(OK,          0,   "ok",          "success")                           \
  X(SPEC,       -1,   "spec",        "invalid spec")                      \
  X(IO,         -2,   "io",          "I/O error")                         \
  X(NOSPACE,    -3,   "nospace",     "no space left on device")           \
  X(NOMEM,      -4,   "nomem",       "out of memory")                     \
  X(MPI,        -5,   "mpi",         "MPI error")                         \
  X(VERIFY,     -6,   "verify",      "data verification failed")          \
  X(UNSUPPORTED,-7,   "unsupported", "not supported by this backend")     \
  X(NOTBUILT,   -8,   "notbuilt",    "backend not built")                 \
  X(PERM,       -9,   "perm",        "permission denied")                 \
  X(NOENT,      -10,  "noent",       "no such file or directory")         \
  X(SHORT,      -11,  "short",       "short transfer")                    \
  X(REMOTE,     -12,  "remote",      "another rank failed")

enum {
#define PARIO_X(name, val, tag, text) PARIO_E_##name = val,
  PARIO_ERRORS(PARIO_X)
#undef PARIO_X
};

/* Short tag ("nospace") and sentence for a code. */
const char *pario_err_tag(int code);
const char *pario_err_text(int code);

/* Record a message for the most recent failure of this process (printf-style) and return code,
 * so that `return pario_err(PARIO_E_IO, "pwrite %s: %s", path, strerror(errno));` reads well. */
int pario_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Map an errno value to a code (ENOSPC -> NOSPACE, ...). */
int pario_err_from_errno(int e);
/* After a failed write (or create) of path whose message pario_err recorded: when the cause is a
 * full file system, name it. saved_errno is errno right after the failing call (ENOSPC or EDQUOT
 * say so at once); otherwise the file system of path's directory is asked (statvfs): less than
 * 1 MiB this user may write, or no free inode, is full. Then the message becomes
 * "<what> <path>: No space left on device (<free> free in DIR; <the library's words>)" and the
 * code PARIO_E_NOSPACE; else code and message stay. Returns the code. */
int pario_err_space(int code, const char *path, int saved_errno);
const char *pario_err_msg(void);
void pario_err_clear(void);

#endif
