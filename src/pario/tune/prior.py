"""What the stack knowledge predicts for a case, before anything is measured: a short ordered list of
configurations that the search runs first (optuna's enqueue_trial), the first one being "the
knowledge-based first guess". Each rule names where it comes from (the seeds, the ROMIO and Open MPI
sources read in anchors-tuning.md, the literature). The rules were written from those sources, not
fitted to this machine's measurements (benchmarks/tune/ measures how good they are here).

`pario advise` (issue 10) has its own rules over a job's profile; when it lands its fixes can be
added here as more guesses."""
from __future__ import annotations

from pario.tune.space import DEFAULT, Config, Space

SMALL = 256 << 10   # below this a request is "small": collective buffering exists to merge such requests
PARALLEL_FS = ("lustre", "gpfs", "beegfs", "pvfs2", "orangefs", "nfs", "panfs", "daos", "cephfs", "wekafs")


def _fit(space: Space, want: dict[str, str]) -> Config | None:
    """A full configuration of the space from the wanted values of some knobs (knobs the space does
    not have are left out; a value the knob does not offer makes the guess impossible)."""
    config: Config = {}
    for knob in space.knobs:
        if not knob.when(config):
            continue
        value = want.get(knob.key, knob.values[0])
        if value not in knob.values:
            if knob.key in want:
                return None
            value = knob.values[0]
        config[knob.key] = value
    return config


def _offers(space: Space, key: str, value: str) -> bool:
    """Whether the space can change the knob to the value (a case that sets it already is not changed:
    the reason of the guess would not be true of it)."""
    knob = space.knob(key)
    return knob is not None and value in knob.values[1:]


def _cb(space: Space, mode: str) -> dict[str, str]:
    """Collective buffering on or off, in the words of the layer that will run (ROMIO or OMPIO)."""
    op = space.ctx.objective
    return {f"romio_cb_{op}": mode, "mca.fcoll": DEFAULT if mode == "enable" else "individual"}


def _layouts(space: Space, calls: list[tuple[dict[str, str], str]],
             lustre: dict[str, str]) -> list[tuple[dict[str, str], str]]:
    """The call-mode guesses under the file layouts worth trying, layout first (decide the layout
    class before the hints: anchors-tuning.md (g)8, the ARCHER2 gap between layouts is 15x).
    - Fewer writers per file avoid shared-file lock contention: file per process (ARCHER2 seed: FPP
      150 vs SSF 10 GiB/s) or a few shared files (the "pattern combinations" course: fewer processes
      per shared file decrease contention). For large requests the case's own layout comes first and
      then K files before one per process (the courses warn that a file per process does not scale:
      metadata, contention on the node); every layout with the first call mode only.
    - Small requests to a shared file pay a lock (Lustre extent lock, a local file system's inode lock)
      per request, which no hint removes; file per process removes it (Cray's lockahead work: >200% for
      small transfers on a shared file), so it comes first, with every call mode."""
    knob = space.knob("strategy")
    own = space.ctx.strategy
    if knob is None or own in ("fpp", "serial") or own.endswith("+agg"):
        return calls
    fewer = [v for v in knob.values if v.startswith("nfiles:")]
    fpp = ["fpp"] if "fpp" in knob.values else []
    if space.ctx.xfer < SMALL and fpp:
        order = [("fpp", calls, "small requests to one shared file pay a lock each: file per process"),
                 (own, calls, ""), *((k, calls[:1], f"{k}: fewer writers per file") for k in fewer)]
    else:
        order = [(own, calls, ""), *((k, calls[:1], f"{k}: fewer writers per file") for k in fewer),
                 *(("fpp", calls[:1], "file per process avoids shared-file locking (ARCHER2 seed)") for _ in fpp)]
    out = []
    for strategy, modes, why in order:
        for want, mode_why in modes:
            if strategy == own:
                out.append((want, mode_why))
            else:
                out.append(({**want, "strategy": strategy, **lustre}, "; ".join(w for w in (why, mode_why) if w)))
    return out


def guesses(space: Space) -> list[tuple[Config, str]]:
    """[(configuration, why)], best guess first; never the default configuration itself."""
    ctx = space.ctx
    out: list[tuple[dict[str, str], str]] = []
    lustre = {}
    if ctx.fs == "lustre":
        count = str(min(ctx.osts, ctx.ranks)) if ctx.osts else DEFAULT
        lustre = {"striping_factor": count, "striping_unit": str(1 << 20), "cb_config_list": "*:2"}
        # CSC seed: striping_unit 1 MiB (2.3x), cb_config_list *:2 (2.9x in all); T3PIO: stripes ~ writers
    interleaved = space.interleaved()
    # Two-phase I/O exists to spare a parallel file system's servers and locks many small or
    # interleaved requests (Thakur et al. 1999); on one host's local file system there are none, and
    # small requests cost a system call each. This condition was added after a first exploration on
    # this machine (one VM, ext4) showed 4 KiB collective buffering far behind independent I/O.
    shared_fs = ctx.fs in PARALLEL_FS or ctx.hosts > 1
    small = ctx.xfer < SMALL and shared_fs
    if interleaved or small:
        # LRZ seed (strided 1 MiB: cb enable 25.5 vs automatic 1.6 GiB/s write); Thakur, Gropp, Lusk 1999:
        # two-phase I/O turns many small or interleaved requests into few large contiguous ones
        why = "interleaved requests" if interleaved else f"small requests ({ctx.xfer} B)"
        out.append(({"collective": "true", **_cb(space, "enable"), **lustre},
                    f"{why}: collective buffering merges them (LRZ seed; Thakur et al. 1999)"))
        out.append(({"collective": "false", **lustre}, "independent I/O, in case the merge costs more than it saves"))
    else:
        # LRZ seed (sequential 1 MiB and 256 MiB: cb disable and independent I/O 2.9x over automatic);
        # ROMIO's automatic mode makes the same choice for non-interleaved requests (ad_write_coll.c)
        out.append(({"collective": "false", **lustre},
                    "contiguous per-rank blocks: independent I/O, no two-phase exchange (LRZ seed)"))
        out.append(({"collective": "true", **_cb(space, "disable"), **lustre},
                    "collective calls with collective buffering off (LRZ seed: cb disable)"))
    if not any(space.knob(k) for k in ("collective", f"romio_cb_{ctx.objective}", "mca.fcoll")):
        out = [({**lustre}, "")]   # no call mode to choose (POSIX): the reasons above would not be true
    if _offers(space, "pnetcdf.mode", "iput"):
        out.insert(0, ({"pnetcdf.mode": "iput", **lustre},
                       "non-blocking puts aggregate requests (CSC seed: BTIO 2.5x)"))
    if ctx.fs == "lustre" and _offers(space, "hdf5.alignment", "1m"):
        out.insert(0, ({"hdf5.alignment": "1m", **lustre},
                       "align objects to the stripe (Howison et al., HDF5 on Lustre)"))
    aggregators = str(max(1, ctx.ranks // max(ctx.hosts, 1)))
    if _offers(space, "adios2.NumAggregators", aggregators):
        out.insert(0, ({"adios2.NumAggregators": aggregators},
                       "more BP5 aggregators per node at modest node counts (ARCHER2 seed)"))
    out = _layouts(space, out, lustre)
    io = space.knob("mca.io")
    if io is not None:
        # The MPI-IO layer is a first-order knob (ROMIO and OMPIO differ in every code path, and which
        # one is faster differs by MPI and pattern): every guess is tried under both layers, in turn.
        other = io.values[1]
        out = [g for want, why in out for g in ((want, why), ({**want, "mca.io": other},
                                                               f"{why}; under {other}" if why else
                                                               f"the other MPI-IO layer, {other}"))]
    seen = {space.canonical(space.default())}
    result = []
    for want, why in out:
        config = _fit(space, want)
        if config is None:
            continue
        key = space.canonical(config)
        if key not in seen:
            seen.add(key)
            result.append((config, why))
    return result
