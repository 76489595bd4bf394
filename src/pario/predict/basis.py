"""What a prediction rests on and what it does not capture: the Reader that records which of the
system's figures a prediction used (and their status: stated, calibrated, assumed, default), the
figures each limit rests on, the interval their status and spread give, and the flags for what the
model leaves out of this pattern on this system (decided from the pattern and the system before any
figure is compared). predict/model.py adds the costs up; this module judges them."""
from __future__ import annotations

from pario.predict.pattern import Geometry, Pattern
from pario.predict.system import System

# File systems whose writers take byte-range locks on a lock unit (a stripe, a block, an object).
LOCKING = ("lustre", "gpfs", "beegfs", "cephfs")

# The interval's width by the status of the figures a prediction uses (a stated band, not a
# statistical one: benchmarks/predict/RESULTS.md records how often the published figure fell in it),
# at least the spread a calibration measured for them (system.Param.spread).
WIDTH = {"calibrated": 1.3, "stated": 1.5, "assumed": 2.0, "default": 3.0}
FLAG_WIDTH, MAX_WIDTH = 1.3, 5.0


class Reader:
    """The system's figures, recording which ones a prediction used (for its basis and interval)."""

    def __init__(self, system: System):
        self.system = system
        self.used: dict[str, str] = {}
        self.servers_cap = True   # the system's server count limits the servers the files reach
        self.cached = False       # a local page cache takes the writes: the device does not pace them

    def __call__(self, name: str):
        self.used[name] = self.system.status(name)
        return self.system[name]


# The figures each limit rests on (for the flag of a binding limit nobody stated or measured).
RESTS_ON = {"servers": ("servers", "server_bw", "server_read_bw"), "per-node network": ("node_bw", "node_read_bw"),
            "per-process": ("process_bw", "process_read_bw", "call_latency"),
            "one writer at a time": ("process_bw", "call_latency"),
            "aggregators": ("process_bw", "process_read_bw"), "lock contention": ("lock_cost",),
            "file system": ("fs_bw", "fs_read_bw"), "two-phase exchange": ("node_bw", "copy_bw"),
            "collective calls": ("collective_call_cost",), "collective open": ("open_cost",),
            "metadata": ("file_cost", "stripe_cost"),
            "metadata (one process)": ("file_cost", "stripe_cost"),
            "metadata (servers)": ("md_rate", "stripe_cost")}


def flag_lock_cost(p: Reader, flags: list) -> None:
    if p.used.get("lock_cost") in ("assumed", "default"):
        flags.append(("lock-cost-unknown", "lock conflicts are priced with a lock_cost neither stated nor "
                                           "calibrated for this system"))


def _rests(p: Reader, binding: str, data: str) -> tuple[str, ...]:
    """The figures the binding limit rests on: the servers' count only where it caps the servers the
    pattern's files reach (a file of 2 stripes on a system of at least 2 servers uses 2, however many
    the system has)."""
    names = RESTS_ON.get(binding if binding in RESTS_ON else data, ())
    return tuple(n for n in names if n != "servers" or p.servers_cap)


def flag_lock_spread(p: Reader, name: str, count: int, flags: list) -> None:
    """Lock conflicts bind and are spread over several Lustre stripe objects: the model divides them
    evenly among the objects (mechanisms.lock_time), an assumption no source gives."""
    if name == "lock contention" and count > 1 and p("kind") == "lustre":
        flags.append(("lock-spread", f"lock conflicts over {count} stripe objects: the model divides them evenly "
                                     "among the objects; how they fall with the stripe count is not modelled"))


def flag_basis(p: Reader, binding: str, data: str, flags: list) -> None:
    """The binding limit rests on a figure that is neither stated nor calibrated."""
    names = [n for n in _rests(p, binding, data) if n in p.used and p.used[n] in ("assumed", "default")]
    if names:
        flags.append(("assumed-limit", f"the binding limit ({binding}) rests on {', '.join(names)}, "
                                       "neither stated nor calibrated"))


def flag_common(p: Reader, pat: Pattern, geo: Geometry, path: str, aggs: int | None, flags: list) -> None:
    """What the model does not capture for this pattern on this system (decided before any figure)."""
    memory = p.system.params.get("memory")
    per_node = geo.total / max(1, pat.nodes)
    if pat.op == "write" and not pat.case.get("fsync") and (
            pat.case.get("backend") == "adios2" or (memory is not None and per_node < memory.value / 2)):
        flags.append(("caching", "client caching can absorb these writes and report above the hardware"))
    if pat.assumed:
        flags.append(("assumed-scale", "not stated, assumed: " + ", ".join(pat.assumed)))
    if pat.volume is not None and pat.fixed is None:
        flags.append(("fixed-unknown", "the application's I/O time that does not scale is unknown (taken as 0)"))
    if pat.op == "read" and path in ("independent", "serial") and geo.interleaved and p("kind") in LOCKING:
        unit = p("lock_unit") if p("kind") == "gpfs" else p("stripe_size")
        if geo.piece < unit:
            flags.append(("sub-block-reads", "interleaved reads smaller than the lock unit: server seeks and "
                                              "prefetching are not modelled"))
    servers = max(1, min(p("servers"), geo.files * (pat.stripe_count or p("stripe_count"))))
    known = p.system.status("servers") in ("stated", "calibrated")
    if path == "independent" and known and geo.writers / servers > 64 and p("kind") != "local":
        flags.append(("server-streams", f"{geo.writers // servers} streams per server: seek contention is not "
                                        "modelled"))
    stripes = pat.stripe_count or p("stripe_count")
    size = pat.case.get("file_size") or 0
    holding = -(-size // (pat.stripe_size or p("stripe_size"))) if size else stripes
    if path == "metadata" and p("kind") == "lustre" and stripes > max(1, holding):
        flags.append(("empty-objects", f"{stripes - holding} of each file's {stripes} stripe objects hold none of "
                                       f"its {size} bytes: they are only queried, and the model prices each like "
                                       "one that holds data"))
    if path == "metadata" and geo.writers > 1 and stripes > 1 and p("kind") == "lustre":
        flags.append(("md-queueing", f"{geo.writers} processes querying {stripes} stripe objects per file: "
                                     "queueing at the OSTs is not modelled"))
    cores = p.system.params.get("cores")
    if cores is not None and pat.ranks_per_node > cores.value:
        flags.append(("oversubscribed", f"{pat.ranks_per_node} ranks on {cores.value} cores: the model gives each "
                                        "rank its share of a core; the scheduler's time slices and ranks spinning "
                                        "in MPI calls are not modelled"))
    if aggs and pat.ranks / aggs > 256:
        flags.append(("fan-in", f"{pat.ranks // aggs} ranks per aggregator: incast at the aggregators is not "
                                "modelled"))


def interval(p: Reader, binding: str, data: str, flags: int) -> tuple[float, str]:
    """The interval's width (the prediction's seconds divided and multiplied by it) and the basis: the
    status of the figures the binding limit rests on (of all the figures used when it rests on none),
    at least their calibrated spread, widened by each flag."""
    rests = {n: p.used[n] for n in _rests(p, binding, data) if n in p.used}
    statuses = set(rests.values()) or set(p.used.values())
    # a calibrated figure's spread (its fits over the calibration's rounds) widens the band where it binds
    spread = max((p.system.params[n].spread for n in (rests or p.used)), default=1.0)
    width = min(max(max(WIDTH[s] for s in statuses), spread) * FLAG_WIDTH ** flags, MAX_WIDTH)
    basis = ("pario defaults" if "default" in statuses else "assumed figures" if "assumed" in statuses
             else "calibrated" if "calibrated" in statuses else "stated hardware")
    return width, basis
