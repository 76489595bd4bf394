"""pario: parallel I/O toolkit for HPC."""
__version__ = "0.1.0"
