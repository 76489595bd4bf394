"""Which plot of `pario report` shows a finding's evidence, when the advised log is a pario
profile log drawn on the same page (report/html/anchors.py names the plots; a Darshan log has no
section of its own there, so its findings link to nothing)."""
from __future__ import annotations

from pario.report.html import anchors

# rule id (or its family: the part before the last '-' for the per-op rules) -> profile view
VIEWS = {
    "small-writes": "sizes", "small-reads": "sizes", "misaligned": "sizes",
    "random-writes": "sizes", "random-reads": "sizes",
    "independent-writes": "sizes", "independent-reads": "sizes",
    "collective-buffering-writes": "sizes", "collective-buffering-reads": "sizes",
    "many-files": "files", "lustre-small-files-striped": "files", "lustre-one-stripe": "files",
    "cephfs-one-server": "files",
    "redundant-reads": "files", "read-back": "files",
    "reopen": "time", "stat-calls": "time", "sync-every-write": "time",
    "one-rank-io": "spread", "stragglers": "spread",
    "hints-not-in-effect": "hints", "aggregators-vs-stripes": "hints",
    "one-aggregator": "spread", "seek-per-transfer": "time", "non-mpi-copies": "spread",
    "aggregators-per-node": "spread",   # rules/nodes.py: the per-rank spread shows which ranks wrote
    # the I/O libraries' rules (rules/libraries.py, rules/lib_layout.py)
    "lib-small-writes": "sizes", "lib-small-reads": "sizes", "lib-misaligned-data": "sizes",
    "lib-small-chunks": "sizes", "netcdf4-default-chunks": "sizes", "hdf5-collective-broken": "files",
    "hdf5-independent-metadata": "time", "adios2-aggregators": "spread",
}


def view_of(rule: str) -> str | None:
    """The profile view of a rule: its own entry, else that of its interface-less form
    (posix-small-writes -> small-writes)."""
    if rule in VIEWS:
        return VIEWS[rule]
    head, _, rest = rule.partition("-")
    return VIEWS.get(rest) if head in ("posix", "stdio", "mpiio") else None


def plot_for(rule: str, n: int) -> str | None:
    """The anchor of the plot that shows this rule's evidence in the n-th profile section."""
    view = view_of(rule)
    return anchors.profile(n, view) if view else None
