"""Typed records and pure knowledge that every layer shares: errors, units, case and result
records, requests, file systems. Nothing here does I/O or imports another pario package."""
