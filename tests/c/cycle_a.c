/* Half of a deliberate cycle between two files (cycle_b.c): the callgraph self-test checks that
 * callgraph.py finds it, so the callgraph test is one that can fail. Never linked. */
int pario_cycle_b(int n);
int pario_cycle_a(int n) { return n > 0 ? pario_cycle_b(n - 1) : 0; }
