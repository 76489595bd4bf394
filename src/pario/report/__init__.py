"""Rendering: terminal tables and the progress display (terminal/), JSON documents (json.py)."""
