"""pario profile: reading the logs of libpario-preload.so and analysing them (pure functions)."""
from .logread import load
from .views import file_view, job_view, summary

__all__ = ["load", "file_view", "job_view", "summary"]
