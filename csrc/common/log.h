#ifndef PARIO_LOG_H
#define PARIO_LOG_H
/* Logs go to stderr, never into results. Level from $PARIO_LOG (error, warn, info, debug). */
enum { PARIO_LOG_ERROR, PARIO_LOG_WARN, PARIO_LOG_INFO, PARIO_LOG_DEBUG };
void pario_log_set_rank(int rank);
void pario_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif
