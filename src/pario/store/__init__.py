"""The results store: SQLite (the only code that speaks SQL) and the import of IOR results."""
from pario.store.sqlite import SCHEMA_VERSION, Store, default_path

__all__ = ["SCHEMA_VERSION", "Store", "default_path"]
