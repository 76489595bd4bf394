"""Findings at the I/O library's level (issue 29), from the library records of a pario profile log
(advise/libjob.py): the fix is said in the library's own terms (property lists, hints, chunking,
non-blocking calls) and, where pario has the knob, as settings of the library layer that `pario
bench -a hdf5|pnetcdf|netcdf4` replays for --verify.

- many small dataset or variable writes (reads) a rank makes one by one, that one hyperslab, one
  collective call or one non-blocking batch would join (CSC's iput table);
- a collective transfer HDF5 did independently, with HDF5's reason;
- a contiguous dataset or variable whose data starts off the file system's unit (H5Pset_alignment,
  PnetCDF's nc_var_align_size or netCDF's nc_set_alignment, as the file's library needs);
- (rules/lib_layout.py) how the library lays out its file: chunks far smaller than the calls
  (netCDF-4's default chunking of a record variable among them), HDF5 metadata every rank reads
  itself, ADIOS2 aggregators (data subfiles) out of step with the job's nodes and servers.

Sizes are judged as the other rules judge them (Ctx.small_limit: the file system's unit and this
system's per-call cost), against the POSIX record of the same file."""
from __future__ import annotations

from typing import Any

from pario.advise.costs import Cost, NotCosted, Ratio
from pario.advise.job import Rec
from pario.advise.libjob import LibRec
from pario.advise.rules.base import Candidate, Ctx, Plan, s
from pario.model.findings import Evidence, Fix
from pario.model.units import human
from pario.settings import Settings, render

_BACKEND = {"hdf5": "hdf5", "pnetcdf": "pnetcdf", "netcdf": "netcdf4"}
_LAYER = {"hdf5": "hdf5", "pnetcdf": "pnetcdf", "netcdf": "netcdf4", "adios2": "adios2"}
_TITLE = {"hdf5": "HDF5", "netcdf": "netCDF-4"}


def _libs(ctx: Ctx, library: str | None = None, kind: str | None = None) -> list[LibRec]:
    return [r for r in getattr(ctx.job, "libs", []) or []
            if (library is None or r.library == library) and (kind is None or r.kind == kind)]


def _under(ctx: Ctx, path: str) -> Rec | None:
    """The POSIX (else MPI-IO) record of the library's file: the file system's facts and sizes."""
    found = [r for r in ctx.job.records if r.path == path]
    return next((r for r in found if r.module == "posix"), None) or next(iter(found), None)


def _file_of(ctx: Ctx, r: LibRec) -> LibRec | None:
    return next((f for f in _libs(ctx, r.library, "file") if f.file == r.file), None)


def _netcdf4_file(ctx: Ctx, path: str) -> bool:
    """A netCDF-4 file: the NetCDF library opened it (its HDF5 records are netCDF's doing)."""
    return any(f.file == path and f.props.get("format", "").startswith("netcdf4") for f in _libs(ctx, "netcdf", "file"))


def _rendered(layer: str, knobs: dict[str, str]) -> dict[str, str]:
    dialect = {"hdf5": "hdf5", "pnetcdf": "pnetcdf", "adios2": "adios2"}.get(layer)
    if not dialect:
        return {}
    text = render(Settings(lib={layer: dict(knobs)}), dialect).strip()
    return {dialect: text} if text else {}


def _label(r: LibRec) -> str:
    return f"{r.file}:{r.name}" if r.name else r.file


def _per_rank_calls(r: LibRec, n: int) -> int:
    return max(1, round(n / max(1, r.nprocs))) if r.rank < 0 else n


def _file_lib(ctx: Ctx, r: LibRec) -> dict[str, str]:
    """The library settings of r's file that a replay keeps on both sides, as `pario bench --lib`
    has them: HDF5's collective metadata (pario bench's default is on, HDF5's off) and alignment."""
    f = _file_of(ctx, r)
    if r.library != "hdf5" or f is None:
        return {}
    out = {"coll_metadata": "true" if f.n("COLL_MD_READS") and f.n("COLL_MD_WRITES") else "false"}
    if f.n("ALIGNMENT") > 1:
        out.update(alignment=str(f.n("ALIGNMENT")), align_threshold=str(max(1, f.n("ALIGN_THRESHOLD"))))
    return out


def _plan_pieces(r: LibRec, op: str, size: int, per_rank: int, before: dict[str, Any], after: dict[str, Any],
                 ranks: int, log_s: float, what: str) -> Plan | None:
    if size % 8 or not size:
        return None
    base = {"backend": _BACKEND[r.library], "strategy": "shared", "transfer": size, "block": size,
            "segments": per_rank, "ops": [op], "reps": 3}
    return Plan(ranks=ranks, before={**base, **before}, after={**base, **after}, log_s=log_s, what=what)


def _plan_joined(r: LibRec, op: str, size: int, per_rank: int, lib: dict[str, str], ranks: int, log_s: float,
                 what: str) -> Plan | None:
    """The fix of many small pieces per rank (HDF5, netCDF-4): as the job did them, one independent
    call per piece, vs all of a rank's pieces selected at once and moved in one collective call.
    pario bench's subarray pattern replays both: a rank's block of `per_rank` rows of one piece, the
    ranks' rows side by side in the file, so that a rank's pieces are apart as interleaved pieces
    are; without a view one call is one row, through a view the block goes in one call."""
    if size % 8 or not size:
        return None
    base = {"backend": _BACKEND[r.library], "strategy": "shared", "pattern": "subarray",
            "dims": [per_rank, size // 8], "ops": [op], "reps": 3, "lib": dict(lib)}
    return Plan(ranks=ranks, before={**base, "transfer": size, "collective": False, "view": False},
                after={**base, "collective": True, "view": True}, log_s=log_s, what=what)


def small_pieces(op: str):
    """Many small calls per rank on one dataset or variable, made one by one."""
    def rule(ctx: Ctx) -> list[Candidate]:
        out = []
        for r in _libs(ctx, kind="object"):
            if r.library not in _BACKEND:
                continue
            calls = r.writes if op == "write" else r.reads
            per_rank = _per_rank_calls(r, calls)
            size = r.typical()
            under = _under(ctx, r.file)
            if per_rank < 2 or not size or under is None:
                continue
            if r.library == "pnetcdf" and (r.n("IPUTS") + r.n("BPUTS") + r.n("IGETS")) * 2 >= calls:
                continue   # already posted as a non-blocking batch
            if r.library == "hdf5" and r.n("COLL_REQUESTED") * 2 >= calls:
                continue   # collective already: HDF5 joins the ranks' pieces of each call
            if r.library == "netcdf" and (r.n("COLL_WRITES") + r.n("COLL_READS")) * 2 >= calls:
                continue
            limit, why = ctx.small_limit(under, op)
            if limit is None or size >= limit:
                continue
            log_s = r.per_rank(r.write_time if op == "write" else r.read_time)
            ranks = ctx.ranks_here(r.nprocs if r.rank < 0 else 1)
            name, things = _label(r), ("dataset" if r.library == "hdf5" else "variable")
            if r.library == "hdf5":
                call = "H5Dwrite" if op == "write" else "H5Dread"
                fix = Fix(kind="code", text=(
                    f"select each rank's {per_rank:,} pieces of {r.name} as one hyperslab (H5Sselect_hyperslab with "
                    f"a count and a stride, or the pieces joined with H5S_SELECT_OR) and make one {call} per rank, "
                    "collective (H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)): HDF5 and MPI-IO then move the "
                    "ranks' pieces as a few large requests"))
                plan = _plan_joined(r, op, size, per_rank, _file_lib(ctx, r), ranks, log_s,
                                    f"{per_rank} pieces of {human(size)} per rank through HDF5, one independent "
                                    f"{call} each vs one collective {call} of them all")
            elif r.library == "pnetcdf":
                fix = Fix(kind="code", text=(
                    f"post the {op}s of {r.name} with ncmpi_i{'put' if op == 'write' else 'get'}_vara_* (or "
                    f"ncmpi_bput_vara_*) and complete them with one ncmpi_wait_all: PnetCDF joins the pending "
                    "requests into one MPI-IO call (or give them all to one ncmpi_put_varn_*_all)"),
                    settings={"pnetcdf.mode": "iput"}, rendered=_rendered("pnetcdf", {"mode": "iput"}))
                plan = _plan_pieces(r, op, size, per_rank, {"lib": {"mode": "blocking"}}, {"lib": {"mode": "iput"}},
                                    ranks, log_s, f"{per_rank} {op}s of {human(size)} per rank through PnetCDF, "
                                                  "blocking vs iput + one wait_all")
            else:
                fix = Fix(kind="code", text=(
                    f"write each rank's pieces of {r.name} with one nc_put_vara/nc_put_vars call over its whole slab, "
                    "in collective access (nc_var_par_access(ncid, varid, NC_COLLECTIVE))"))
                plan = _plan_joined(r, op, size, per_rank, {}, ranks, log_s,
                                    f"{per_rank} pieces of {human(size)} per rank through netCDF-4, one independent "
                                    "call each vs one collective call of them all")
            text = (f"{name}: {calls:,} {op}s of ~{human(size)} ({per_rank:,} per rank, one by one; smaller than "
                    f"{human(limit)}: {why}); {s(log_s)} per rank in them.")
            counters: dict[str, float] = {f"{r.module.upper()}_{'WRITES' if op == 'write' else 'READS'}": calls,
                        f"{r.module.upper()}_NPROCS": r.nprocs}
            cost: Cost = Ratio(log_s=log_s, what=plan.what) if plan else NotCosted("no call size the engine can replay")
            out.append(Candidate(rule=f"lib-small-{op}s", title=f"many small {things} {op}s ({r.library})",
                                 evidence=Evidence(text=text, counters=counters, files=[r.file]), fix=fix, cost=cost,
                                 confidence="medium", plan=plan, stance=(r.file, "collective")))
        return out
    return rule


_CAUSES = {"NOCOLL_TYPE_CONVERSION": ("the memory type differs from the dataset's (HDF5 converts, and converting "
                                      "is done independently)",
                                      "write from a buffer of the dataset's own type (e.g. H5T_NATIVE_DOUBLE for a "
                                      "double dataset), converting in the program first"),
           "NOCOLL_DATA_TRANSFORM": ("a data transform is set (H5Pset_data_transform)",
                                     "apply the transform in the program and drop H5Pset_data_transform"),
           "NOCOLL_MPI_TYPES_OFF": ("MPI derived types are switched off (HDF5_MPI_OPT_TYPES)",
                                    "unset HDF5_MPI_OPT_TYPES"),
           "NOCOLL_NOT_SIMPLE": ("a dataspace is neither simple nor scalar", "use simple dataspaces"),
           "NOCOLL_LAYOUT": ("the dataset is compact", "store it contiguous or chunked (H5Pset_layout)"),
           "NOCOLL_FILTERS": ("the dataset is filtered and parallel filtered writes are off",
                              "use HDF5 1.10.2 or newer with collective writes of filtered datasets"),
           "NOCOLL_ERROR": ("HDF5 failed while checking whether it could", "read HDF5's error stack"),
           "NOCOLL_OTHER": ("a reason this pario does not name (H5Pget_mpio_no_collective_cause)",
                            "read H5Pget_mpio_no_collective_cause's answer")}


def collective_broken(ctx: Ctx) -> list[Candidate]:
    """HDF5 was asked for a collective transfer and did it without collective I/O."""
    out = []
    for r in _libs(ctx, "hdf5", "object"):
        broken, asked = r.n("ACTUAL_NONE"), r.n("COLL_REQUESTED")
        if not broken:
            continue
        causes = [k for k in _CAUSES if r.n(k)]
        why = "; ".join(_CAUSES[k][0] for k in causes) or "HDF5 gave no reason"
        if r.source == "darshan":   # Darshan records neither HDF5's io mode nor its reason
            causes = ["NOCOLL_TYPE_CONVERSION", "NOCOLL_DATA_TRANSFORM", "NOCOLL_MPI_TYPES_OFF"]
            why = ("not in a Darshan log; the usual ones: " + "; ".join(_CAUSES[k][0] for k in causes) +
                   " (H5Pget_mpio_no_collective_cause after the call names it)")
        size = r.typical()
        per_rank = _per_rank_calls(r, broken)
        op = "write" if r.writes >= r.reads else "read"
        log_s = r.per_rank(r.write_time + r.read_time) * broken / max(1, r.writes + r.reads)
        ranks = ctx.ranks_here(r.nprocs if r.rank < 0 else 1)
        # what HDF5 did instead: the MPI-IO calls under the file, independent, of their own size (a
        # selection of many pieces becomes one independent call per piece)
        under = next((u for u in ctx.job.records if u.path == r.file and u.module == "mpiio"), None)
        sizes = (under.write_sizes if op == "write" else under.read_sizes) if under else None
        dom = sizes.dominant() if sizes else None
        indep = ((under.indep_writes if op == "write" else under.indep_reads) or 0) if under else 0
        piece = dom[0] if dom else size or 0
        pieces = max(per_rank, round(indep / max(1, under.nprocs if under and under.rank < 0 else 1)))
        plan = _plan_joined(r, op, piece, pieces, _file_lib(ctx, r), ranks, log_s,
                            f"{pieces:,} pieces of {human(piece)} per rank through HDF5, one independent call each "
                            "(as HDF5 did them) vs one collective call (as the program asked)")
        how = ("(H5Pget_mpio_actual_io_mode: H5D_MPIO_NO_COLLECTIVE)" if r.source != "darshan" else
               f"(the file's MPI-IO record: {indep:,} independent calls, not one collective)")
        text = (f"{_label(r)}: {broken:,} of {asked:,} collective calls were done without collective I/O "
                f"{how}; HDF5's reason (H5Pget_mpio_no_collective_cause): {why}.")
        fix_words = "; ".join(_CAUSES[k][1] for k in causes) or "read H5Pget_mpio_no_collective_cause's answer"
        if r.source == "darshan":
            fix_words = "whichever of these is the cause: " + fix_words
        out.append(Candidate(rule="hdf5-collective-broken", title="collective transfer done independently (HDF5)",
                             evidence=Evidence(text=text, counters={"H5D_COLL_REQUESTED": asked,
                                                                    "H5D_ACTUAL_NONE": broken,
                                                                    **{f"H5D_{k}": r.n(k) for k in causes if r.n(k)}},
                                               files=[r.file]),
                             fix=Fix(kind="code", text=f"{fix_words}: HDF5 then does the transfer collectively, as "
                                                       "the program asked"),
                             cost=Ratio(log_s=log_s, what="collective calls") if plan else
                             NotCosted("no call size the engine can replay"),
                             confidence="high", plan=plan))
    return out


def misaligned_data(ctx: Ctx) -> list[Candidate]:
    """A contiguous dataset or variable at least one unit large whose data starts off the unit."""
    out = []
    seen: set[str] = set()
    for r in _libs(ctx, kind="object"):
        if r.library not in ("hdf5", "pnetcdf") or r.file in seen:
            continue
        if r.library == "hdf5" and r.props.get("layout") != "contiguous":
            continue
        offset = r.n("FILE_OFFSET")
        under = _under(ctx, r.file)
        if not offset or under is None:
            continue
        facts = ctx.facts(under)
        unit = facts.unit
        size = r.n("DATASET_SIZE") if r.library == "hdf5" else r.n("BYTES_WRITTEN") + r.n("BYTES_READ")
        typical = r.typical() or 0
        op = "write" if r.writes >= r.reads else "read"
        exact = (under.write_sizes if op == "write" else under.read_sizes).exact
        carrier = max(exact, key=lambda k: k * exact[k]) if exact else None   # the size moving most bytes
        if not unit or offset % unit == 0 or size < unit or (carrier is not None and carrier < unit):
            continue   # (what reaches the file system in calls smaller than the unit, as HDF5 does a
            #            selection of small pieces or an independent transfer of one, stays partial blocks
            #            wherever the data starts: the fix for them is joining them, the small-calls rules')
        seen.add(r.file)
        library = "netcdf" if r.library == "hdf5" and _netcdf4_file(ctx, r.file) else r.library
        layer = _LAYER[library]
        if library == "hdf5":
            knobs = {"alignment": str(unit), "align_threshold": str(unit)}
            words = (f"set H5Pset_alignment(fapl, {unit}, {unit}) on the file access property list before "
                     "H5Fcreate: datasets of at least that size then start on a unit boundary")
        elif library == "netcdf":
            knobs = {"alignment": str(unit), "align_threshold": str(unit)}
            words = (f"call nc_set_alignment({unit}, {unit}) before nc_create (netCDF 4.9): variables of at "
                     "least that size then start on a unit boundary (the netCDF-4 file is HDF5 underneath)")
        else:
            knobs = {"var_align": str(unit)}
            words = (f"pass nc_var_align_size={unit} in the MPI_Info of ncmpi_create (or PNETCDF_HINTS): "
                     "variables then start on a unit boundary")
        log_s = r.per_rank(r.write_time + r.read_time)
        ranks = ctx.ranks_here(r.nprocs if r.rank < 0 else 1)
        plan = None
        calls = _per_rank_calls(r, r.writes + r.reads)
        if typical and typical % 8 == 0:
            base = {"backend": _BACKEND[library], "strategy": "shared", "transfer": typical,
                    "block": typical * calls, "ops": [op], "reps": 3, "lib": {}}
            plan = Plan(ranks=ranks, before=base, after={**base, "lib": dict(knobs)}, log_s=log_s,
                        what=f"{human(typical)} {op}s through {library} with the library's placement vs aligned to "
                             f"{human(unit)}")
        text = (f"{_label(r)} ({human(size)}) starts at byte {offset:,} of the file, not a multiple of "
                f"{human(unit)} ({facts.unit_source}): every {op} of its data straddles one more block or stripe "
                f"than it needs; {s(log_s)} per rank in them.")
        out.append(Candidate(rule="lib-misaligned-data", title=f"{library} data not aligned to {human(unit)}",
                             evidence=Evidence(text=text, counters={f"{r.module.upper()}_FILE_OFFSET": offset},
                                               files=[r.file]),
                             fix=Fix(kind="settings", text=words, rendered=_rendered(layer, knobs),
                                     settings={f"{layer}.{k}": v for k, v in knobs.items()}),
                             cost=Ratio(log_s=log_s, what=f"data aligned to {human(unit)}") if plan else
                             NotCosted("no call size the engine can replay"),
                             confidence="medium", plan=plan))
    return out


RULES = [small_pieces("write"), small_pieces("read"), collective_broken, misaligned_data]
