/* The other half of the deliberate cycle (cycle_a.c). Never linked. */
int pario_cycle_a(int n);
int pario_cycle_b(int n) { return n > 0 ? pario_cycle_a(n - 1) : 1; }
