"""Pure analysis over records: run summaries, comparisons, the layers comparison, profile logs.
Nothing here prints; report/ renders what these functions return."""
