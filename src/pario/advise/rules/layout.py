"""Requests against the file system's layout: misaligned with the real stripe or block size, a
large shared file left at one stripe (Lustre), small files spread over many stripes (ARCHER's
36,000 files), and MPI-IO aggregators out of step with the stripe count."""
from __future__ import annotations

from pario.advise.costs import Cost, FromLog, NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.libraries import alignment_fix, library_of
from pario.advise.rules.base import Candidate, Ctx, Plan, names, passes, ranks_of, s
from pario.model.findings import Evidence, Fix
from pario.model.units import exact, human
from pario.settings import Settings, render
from pario.settings.equivalence import explain


def _dialect(ctx: Ctx) -> str:
    return {"ompio": "ompi", "cray": "cray"}.get(ctx.stack.impl or "", "romio")


def rendered(ctx: Ctx, settings: Settings, path: str = "DIR") -> dict[str, str]:
    """The settings in the dialects of the job's MPI-IO layer (all ROMIO-derived ones when it is
    not known), then MPI_Info and, for a layout, lfs."""
    impl = ctx.stack.impl
    mine = {"ompio": ["ompi"], "cray": ["cray"], "romio": ["romio"]}.get(impl or "", ["romio", "cray"])
    out: dict[str, str] = {}
    for dialect in [*mine, "info", "lfs"]:
        text = render(settings, dialect, path=path) if dialect == "lfs" else render(settings, dialect)
        if text.strip():
            out[dialect] = text.strip()
    return out


def _tails(r: Rec, unit: int) -> int:
    """Requests that end at the end of the file when its size is no multiple of the unit: the last
    piece of a file cannot be aligned, and costs nothing more than its bytes. One per pass (a
    write or read of the whole file again: IOR's -i), for reads one per rank."""
    ranks = r.nprocs if r.rank < 0 else 1
    out = 0
    # one write ends at the end of a file per pass (whichever rank makes it); every rank may read it
    for top, moved, each in ((r.max_byte_written, r.bytes_written, 1), (r.max_byte_read, r.bytes_read, ranks)):
        if moved and top is not None and top >= 0 and (top + 1) % unit:
            out += passes(r) * each
    return out


def misaligned(ctx: Ctx) -> list[Candidate]:
    """Requests at least as big as the unit whose offset (or size) is no multiple of it: each
    touches one more block or stripe. On a file several ranks write, also the ranks' data requests
    smaller than the unit (the file's most common size), where the log counts offsets only
    (Darshan): when the data starts off a unit boundary, every rank's region straddles units that
    a neighbour writes too (read-modify-write, lock ping-pong on Lustre). Requests of a size D
    that divides the unit miss its boundaries (unit - D) / unit of the time even in an aligned
    region: only the excess over that counts. A library's small metadata requests never count."""
    hits: list[tuple[Rec, int, int]] = []
    for r in ctx.recs("posix"):
        if r.path in ctx.library_files():
            continue   # the library places the data: rules/libraries.py says how, in its terms
        facts = ctx.facts(r)
        if not r.not_aligned or not facts.unit or not r.alignment:
            continue
        if facts.unit != r.alignment:
            continue   # the log checked against another unit than the one advised for: no count to use
        small = 0
        data_sizes = {size for lib in ctx.job.libs if lib.file == r.path and lib.kind == "object" for size in lib.sizes}
        for op, hist in (("write", r.write_sizes), ("read", r.read_sizes)):
            limit, _ = ctx.small_limit(r, op)
            if limit:
                floor = min(limit, facts.unit)
                dom = hist.dominant()
                if r.shared and dom and 8 <= dom[0] < floor and ctx.job.format == "darshan" and \
                        (r.path not in ctx.job.lib_files or dom[0] in data_sizes):
                    # (on a library's file, only a size its dataset calls show: its other requests
                    # below the unit are its own metadata, at offsets of its choosing)
                    floor = dom[0]   # the ranks' data requests, smaller than the unit
                    if facts.unit % dom[0] == 0:
                        data = hist.total - sum(hist.below(floor))
                        small += int(data * (facts.unit - dom[0]) / facts.unit)
                n, unknown = hist.below(floor)
                small += n + unknown
        # Darshan counts offsets only (a file's tail starts where it may); pario offsets and sizes
        tails = _tails(r, facts.unit) if ctx.job.format != "darshan" else 0
        large_unaligned = r.not_aligned - small - tails
        if large_unaligned > 0:
            hits.append((r, large_unaligned, facts.unit))
    if not hits:
        return []
    unit = hits[0][2]
    n = sum(h[1] for h in hits)
    total = sum(h[0].reads + h[0].writes for h in hits)
    log_s = max(h[0].elapsed(h[0].read_time + h[0].write_time) * h[1] / max(1, h[0].reads + h[0].writes)
                for h in hits)
    facts = ctx.facts(hits[0][0])
    sizes: dict[int, int] = {}
    for r, _, _ in hits:
        for sz in (r.write_sizes, r.read_sizes):
            for size, c in sz.exact.items():
                if size >= unit:
                    sizes[size] = sizes.get(size, 0) + c
    typical = max(sizes, key=lambda k: sizes[k]) if sizes else None
    na = sum(h[0].not_aligned or 0 for h in hits)
    text = (f"{na:,} of {total:,} requests start or end off a {human(unit)} boundary ({facts.unit_source}); of "
            f"the data requests (not a library's small metadata ones, nor a file's last piece), at least {n:,}")
    if typical and typical % unit:
        text += f"; most are {human(typical)}, not a multiple of {human(unit)}"
    text += ": each touches one more block or stripe than it needs (read-modify-write, one more lock)."
    # the knobs of the library that wrote the files, when one did (advise/libraries.py)
    libs = {library_of(h[0].path, ctx.job).name for h in hits}
    lib = library_of(hits[0][0].path, ctx.job) if len(libs) == 1 else None
    words, keys, shown = alignment_fix(lib, unit) if lib is not None else ("", {}, {})
    fix_text = f"start every request at a multiple of {human(unit)} and make its size one"
    fix_text += (f"; the files are {lib.name}'s ({lib.how}): {words}" if lib is not None and words else
                 f": pad headers and records to {human(unit)}")
    # PnetCDF's hints and ADIOS2's parameters are given outside the code; HDF5's call is code
    fix = Fix(kind="settings" if lib is not None and lib.name in ("PnetCDF", "ADIOS2") else "code", text=fix_text,
              settings=keys, rendered=shown)
    plan: Plan | None = None
    cost: Cost = NotCosted("the engine writes at multiples of its transfer size: misaligned offsets "
                                 "of aligned sizes cannot be replayed here")
    if typical and typical % unit and typical % 8 == 0:
        aligned = max(unit, round(typical / unit) * unit)
        count = max(h[0].writes for h in hits) or max(h[0].reads for h in hits)
        op = "write" if any(h[0].writes for h in hits) else "read"
        base = {"backend": "posix", "strategy": "fpp", "ops": [op], "reps": 3}
        plan = Plan(ranks=1, before=dict(base, transfer=typical, block=typical * count),
                    after=dict(base, transfer=aligned, block=aligned * count), log_s=log_s,
                    what=f"{human(typical)} requests vs {human(aligned)} ones")
        cost = Ratio(log_s=log_s, what=f"requests of {human(aligned)} (a multiple of {human(unit)})")
    return [Candidate(rule="misaligned", title=f"requests not aligned to {human(unit)}",
                      evidence=Evidence(text=text, counters={"POSIX_FILE_NOT_ALIGNED": sum(h[0].not_aligned or 0
                                                                                            for h in hits),
                                                             "POSIX_FILE_ALIGNMENT": unit},
                                        files=names(h[0] for h in hits), ranks=ranks_of(h[0] for h in hits)),
                      fix=fix, cost=cost, confidence="medium" if "assumed" not in facts.unit_source else "low",
                      plan=plan, veto=False)]


def _file_size(r: Rec) -> int:
    return max(r.max_byte_written or -1, r.max_byte_read or -1) + 1


def lustre_one_stripe(ctx: Ctx) -> list[Candidate]:
    """A large file that many ranks share, on one OST, moved in requests large enough to be bound by
    bandwidth (not small for this file system: ctx.small_limit): one server's bandwidth is then the
    ranks' ceiling. Small requests are bound by each call's fixed cost, which more stripes do not
    lower (bigger requests do: the small-requests rule)."""
    out = []
    for r in ctx.recs("posix"):
        facts = ctx.facts(r)
        if not facts.lustre or facts.stripe_count != 1 or not facts.stripe_size or not r.shared:
            continue
        size = _file_size(r)
        if size < 2 * facts.stripe_size:
            continue
        op = "write" if r.bytes_written >= r.bytes_read else "read"
        limit, _ = ctx.small_limit(r, op)
        n = r.writes if op == "write" else r.reads
        if not n or limit is None or (r.bytes_written if op == "write" else r.bytes_read) / n < limit:
            continue
        writers = r.nprocs
        count = min(writers, -(-size // facts.stripe_size))
        capped = ""
        if facts.ost_count:
            count = min(count, facts.ost_count)
        else:
            capped = " (no more than your OST count: `lfs df` lists them)"
        settings = Settings(hints={"striping_factor": str(count), "striping_unit": str(facts.stripe_size)},
                            layout=[{"stripe_count": str(count), "stripe_size": str(facts.stripe_size)}])
        d = r.path.rsplit("/", 1)[0] or "."
        text = (f"{r.name} ({human(size)}) is written by {writers} ranks and lies on one OST (stripe count 1, "
                f"{facts.source}): all its bytes go through one server.")
        fix = Fix(kind="layout", command=f"lfs setstripe -c {count} -S {exact(facts.stripe_size, 'GMK')} {d}",
                  text=f"stripe the directory over {count} OSTs{capped} before the job creates the file (a layout "
                       "is fixed at creation), or pass striping_factor/striping_unit when MPI-IO creates it",
                  settings={"lustre.stripe_count": str(count), "lustre.stripe_size": str(facts.stripe_size)},
                  rendered=rendered(ctx, settings, d))
        out.append(Candidate(rule="lustre-one-stripe", title=f"shared file on one stripe ({human(size)})",
                             evidence=Evidence(text=text, counters={"POSIX_STRIPE_COUNT": 1,
                                                                    "POSIX_NPROCS": writers},
                                               files=[r.name]),
                             fix=fix, cost=NotCosted("striping can only be measured on Lustre: run --verify there"),
                             confidence="high" if facts.ost_count else "medium"))
    return out


def lustre_small_files_striped(ctx: Ctx) -> list[Candidate]:
    """Many files smaller than one stripe per OST they are spread over."""
    hits = []
    for r in ctx.data_recs("posix"):
        facts = ctx.facts(r)
        count, size = facts.stripe_count or 1, facts.stripe_size or 0
        if facts.lustre and count > 1 and size and _file_size(r) < size * count:
            hits.append((r, facts))
    paths = {r.path for r, _ in hits}
    if len(paths) < 2:
        return []
    r0, facts = hits[0]
    count, size = int(facts.stripe_count or 1), int(facts.stripe_size or 0)
    dirs = sorted({p.rsplit("/", 1)[0] or "." for p in paths})
    meta = max(r.elapsed(r.meta_time) for r, _ in hits)
    text = (f"{len(paths):,} files smaller than {human(size * count)} are spread over "
            f"{count} OSTs each: every open, stat and close asks {count} servers "
            "(ARCHER's seed: 36,000 files of ~300 KB, read in 2 h at stripe count 48, in 6 min at 1).")
    settings = Settings(layout=[{"stripe_count": "1"}])
    return [Candidate(rule="lustre-small-files-striped", title=f"{len(paths):,} small files striped over "
                      f"{count} OSTs",
                      evidence=Evidence(text=text, counters={"POSIX_STRIPE_COUNT": count},
                                        files=names(r for r, _ in hits)),
                      fix=Fix(kind="layout", command=" && ".join(f"lfs setstripe -c 1 {d}" for d in dirs[:3]),
                              text="stripe the directories of small files over one OST (new files inherit it; "
                                   "existing ones keep theirs: copy them)",
                              settings={"lustre.stripe_count": "1"}, rendered=rendered(ctx, settings, dirs[0])),
                      cost=FromLog(meta * (count - 1) / count,
                                   f"the log: {s(meta)} in metadata calls on these files; with one OST per file, "
                                   f"(stripe count - 1)/stripe count of the per-OST work goes (an upper bound)")
                      if meta else NotCosted("no metadata time in the log"),
                      confidence="medium")]


def aggregators_vs_stripes(ctx: Ctx) -> list[Candidate]:
    """Collective writes to a striped file through a number of aggregators that is no multiple
    (and no divisor) of the stripe count: some OSTs get two aggregators' traffic, some none."""
    out = []
    for r in ctx.recs("mpiio"):
        facts = ctx.facts(r)
        if not facts.lustre or not (r.coll_writes or 0) or not r.hints or not facts.stripe_count:
            continue
        try:
            nodes = int(r.hints.get("cb_nodes", "0"))
        except ValueError:
            continue
        count = int(facts.stripe_count)
        if nodes <= 0 or count <= 1 or nodes % count == 0 or count % nodes == 0:
            continue
        want = count * max(1, nodes // count)   # a whole number of aggregators per stripe
        settings = Settings(hints={"cb_nodes": str(want)}) if ctx.stack.impl != "cray" else \
            Settings(hints={"cray_cb_nodes_multiplier": "1"})
        view = {"impl": ctx.stack.impl, "fs": "lustre", "ranks": r.nprocs, "hosts": ctx.stack.hosts or 1,
                "stripe_count": count, "ops": ["write"]}
        canon, applied = explain(settings, view)
        note = "; ".join(a.reason() for a in applied)
        text = (f"{r.name}: {nodes} aggregators (cb_nodes in effect) write a file of {count} stripes: "
                f"{nodes} is neither a multiple nor a divisor of {count}, so some OSTs serve two aggregators "
                "and others wait.")
        out.append(Candidate(rule="aggregators-vs-stripes", title=f"{nodes} aggregators for {count} stripes",
                             evidence=Evidence(text=text, counters={"MPIIO_COLL_WRITES": r.coll_writes or 0},
                                               files=[r.name]),
                             fix=Fix(kind="settings", text=f"use {want} aggregators (a whole number per stripe)"
                                     f"{': ' + note if note else ''}",
                                     settings=canon.hints, rendered=rendered(ctx, canon)),
                             cost=NotCosted("aggregator placement can only be measured on Lustre"),
                             confidence="medium"))
    return out


RULES = [misaligned, lustre_one_stripe, lustre_small_files_striped, aggregators_vs_stripes]
