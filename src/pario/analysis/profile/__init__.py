"""Reading profile logs and their pure views (per file, per job)."""
from pario.analysis.profile.logread import load
from pario.analysis.profile.views import file_view, job_view, summary

__all__ = ["file_view", "job_view", "load", "summary"]
