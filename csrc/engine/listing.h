/* pario-engine --list: the backends of this build, as one JSON object on stdout. */
#ifndef PARIO_ENGINE_LISTING_H
#define PARIO_ENGINE_LISTING_H

/* Prints {"backends": [{"name", "built", "caps", "missing"|"version", "options", "lib_keys"}],
 *         "limits": {what the spec check refuses: lengths, counts, ranges}};
 * returns the exit code (0). */
int pario_list_backends(void);

#endif
