"""Every table pario prints, and the progress display of a run."""
