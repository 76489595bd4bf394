/* See fault.h. */
#include "engine/fault.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pario_fault_point(int rank, int writes, int timed) {
  static int armed = -1, at = -1, seen = 0;
  static char kind[16];
  if (armed == -1) {
    const char *f = getenv("PARIO_FAULT");
    int n = f ? sscanf(f, "%15[a-z]:%d:%d", kind, &armed, &at) : 0;
    if (n < 2) armed = -2;
    if (n < 3) at = -1;
  }
  int phase = timed ? seen++ : -1;
  if (armed != rank || (at >= 0 ? phase != at : !writes)) return;
  armed = -2;
  if (!strcmp(kind, "die")) _exit(17);
  if (!strcmp(kind, "hang"))
    for (;;) sleep(1);
}
