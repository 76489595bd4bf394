/* pario-engine --probe: the O_DIRECT device ceiling of a directory. */
#ifndef PARIO_ENGINE_PROBE_H
#define PARIO_ENGINE_PROBE_H

/* `streams` threads at once (one file each, about mib MiB in all); prints one JSON object on
 * stdout. 0 or a PARIO_E_ code. */
int pario_probe(const char *dir, int mib, int streams);

#endif
