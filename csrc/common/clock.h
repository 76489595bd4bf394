#ifndef PARIO_CLOCK_H
#define PARIO_CLOCK_H
/* Monotonic seconds (CLOCK_MONOTONIC); never wall clock inside measurements. */
double pario_now(void);
/* UTC ISO 8601 wall-clock time into buf (for provenance only). */
void pario_wallclock_iso(char *buf, int len);
#endif
