/* A testing aid: PARIO_FAULT makes one rank die or hang at a chosen point, so that the front
 * end's handling of dead and stuck ranks can be tested with the real engine (schemas/README.md). */
#ifndef PARIO_ENGINE_FAULT_H
#define PARIO_ENGINE_FAULT_H

/* Called by every rank at the start of each phase (after its open), with whether the phase writes
 * (write, create) and whether it is timed. PARIO_FAULT="die:R" or "hang:R": rank R dies (exit 17)
 * or hangs in its first writing phase, timed or not; "die:R:N" / "hang:R:N": in its N-th timed
 * phase (0-based, any op). Unset or malformed: nothing. */
void pario_fault_point(int rank, int writes, int timed);

#endif
