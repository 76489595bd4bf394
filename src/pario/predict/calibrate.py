"""`pario predict --calibrate`: measure a mounted directory with at most five short `pario bench`
probes and write the fitted figures into the system file, each with when, where and how. The
site's own tools are read first where they exist (`lfs df` for the OST count, `lfs getstripe -d`
for the default layout, `mmlsfs -B` for the GPFS block); what they state is recorded as stated.

The probes (each one `pario bench` run, short sizes): 1 a large-transfer file per process by one
rank (one process's rate); 2 the same by every rank here (the node's and the servers' ceiling);
3 a shared file, collective and independent, pieces below and at the lock unit, and one of 1 MiB
per rank through MPI-IO (collective calls, lock conflicts, the collective open and close); 4
metadata creates (per file, per stripe on Lustre); 5 512-byte writes (the cost of one call). On
a shared machine one run of them can be 2-7x off (other jobs): the five run --rounds times,
alternated, and the model's figures are fitted to the medians (predict/fit.py); the figures fitted
to each round alone give each figure's spread, which the prediction's interval takes where that
figure binds. On a local file system the node's dirty page-cache limit is read from /proc."""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pario.model.errors import ParioError, did_you_mean
from pario.predict import sysfile
from pario.predict import system as systems
from pario.predict.fit import fit
from pario.predict.model import predict
from pario.predict.pattern import Pattern, from_case

MIB = 1 << 20


def probes(ranks: int, lock_unit: int, kind: str) -> list[tuple[str, int, list[dict[str, Any]]]]:
    """(what it measures, ranks, its cases as job-file [[case]] tables)."""
    small = max(64 << 10, lock_unit // 16)
    out: list[tuple[str, int, list[dict[str, Any]]]] = [
        ("one process's rate", 1, [{"name": "fpp-1", "backend": "posix", "strategy": "fpp", "transfer": "4m",
                                    "block": "128m", "ops": ["write"]}]),
           ("the node's and the servers' ceiling", ranks,
            [{"name": "fpp-n", "backend": "posix", "strategy": "fpp", "transfer": "4m", "block": "64m",
              "ops": ["write"]}]),
           ("collective calls and lock conflicts", ranks,
            [{"name": "coll", "backend": "mpiio", "collective": True, "transfer": "1m", "block": "1m",
              "segments": 32, "ops": ["write"]},
             {"name": "open", "backend": "mpiio", "transfer": "1m", "block": "1m", "ops": ["write"]},
             {"name": "below-unit", "backend": "posix", "transfer": small, "block": small, "segments": 256,
              "ops": ["write"]},
             {"name": "at-unit", "backend": "posix", "transfer": lock_unit, "block": lock_unit,
              "segments": max(4, (16 * MIB) // lock_unit), "ops": ["write"]}]),
           ("metadata per file", 1, [{"name": "md", "workload": "metadata", "files_per_dir": 2000,
                                      "ops": ["create"]}]),
           ("the cost of one call", 1, [{"name": "small", "backend": "posix", "strategy": "fpp", "transfer": 512,
                                         "block": "4m", "ops": ["write"]}])]
    if kind in SERVED:  # the servers' rates are what is fitted: the data must reach them inside the phase
        for _, _, cases in out[:3]:
            for case in cases:
                case["fsync"] = True
    if kind == "cephfs":  # a file of one object is one server's: spread the rate probes' files over all
        for _, _, cases in out[:2]:
            for case in cases:
                case.update(stripe_count=-1, object_size="4m")
    return out


# File systems whose clients cache writes that the servers get later (ceph-fuse, Lustre's and NFS's
# clients): their probes flush inside the timed phase (-e), else the client's cache is measured.
SERVED = ("lustre", "gpfs", "beegfs", "cephfs", "nfs")


def _fits(kind: str) -> list[str]:
    """The figures the probes can tell apart on this kind of file system."""
    names = ["process_bw", "server_bw", "collective_call_cost", "open_cost", "call_latency", "file_cost", "copy_bw"]
    if kind in ("lustre", "gpfs", "beegfs", "cephfs"):
        names.append("lock_cost")
    return names


def _bench(directory: str, ranks: int, cases: list[dict[str, Any]], reps: int, db: str) -> list[dict[str, Any]]:
    """Run one probe through `pario bench --config` and return its summary rows."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False, prefix="pario-probe-") as fh:
        fh.write(f"[defaults]\nreps = {reps}\n")
        for case in cases:
            fh.write("\n[[case]]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in case.items()))
        job = fh.name
    argv = [sys.executable, "-m", "pario", "bench", "--config", job, "-n", str(ranks), "--dir", directory,
            "--json", "--no-probe", "--db", db]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(job)
    if out.returncode != 0:
        tail = (out.stderr.strip().splitlines() or ["no message"])[-1]
        raise ParioError(f"--calibrate: the probe `pario bench -n {ranks}` failed: {tail}")
    return json.loads(out.stdout).get("summary") or []


def measured(row: dict[str, Any]) -> float | None:
    """Seconds of the probe's phase: bytes over the median rate (metadata: files over files/s)."""
    md = ((row.get("metadata") or {}).get("phases") or {}).get("create")
    if md:
        rate = (md.get("files_per_s") or {}).get("median")
        return md["files"] / rate if rate else None
    bw = ((row.get("write") or {}).get("bw_mib") or {}).get("median")
    return row["bytes"] / (bw * MIB) if bw and row.get("bytes") else None


def site_facts(directory: str, kind: str) -> dict[str, tuple[Any, str]]:
    """What the site's tools state: {figure: (value, how it was read)}."""
    from pario.platform import fsinfo
    out: dict[str, tuple[Any, str]] = {}
    if kind == "lustre":
        text = fsinfo.run_tool(["lfs", "df", directory])
        if text and fsinfo.parse_lfs_df(text).get("ost_count"):
            out["servers"] = (fsinfo.parse_lfs_df(text)["ost_count"], f"lfs df {directory}")
        text = fsinfo.run_tool(["lfs", "getstripe", "-d", directory])
        entries = fsinfo.parse_getstripe(text) if text else []
        if entries:
            for key in ("stripe_count", "stripe_size"):
                value = entries[0].get(key)
                if isinstance(value, int) and value > 0:
                    out[key] = (value, f"lfs getstripe -d {directory}")
    if kind == "cephfs":  # the object servers up, and the layout a new file gets there (pario stack's facts)
        from pario.platform import cephfs
        facts = cephfs.facts(fsinfo.describe(directory), directory)
        if facts.get("servers"):
            out["servers"] = (facts["servers"], "ceph osd dump (object servers up and in)")
        layout = facts.get("new_file_layout") or {}
        for key, field in (("stripe_count", "stripe_count"), ("stripe_size", "stripe_unit"),
                           ("object_size", "object_size")):
            if isinstance(layout.get(field), int) and layout[field] > 0:
                out[key] = (layout[field], f"getfattr -n ceph.dir.layout ({facts.get('layout_source')})")
    if kind == "local":
        limit = dirty_limit()
        if limit:
            out["dirty_limit"] = limit
    if kind == "gpfs":
        device = fsinfo.mount_of(directory).get("source", "")
        text = fsinfo.run_tool(["mmlsfs", os.path.basename(device), "-B"]) if device else None
        block = fsinfo.parse_mmlsfs(text).get("block_size") if text else None
        if block:
            out["lock_unit"] = (block, f"mmlsfs {os.path.basename(device)} -B")
    return out


def dirty_limit(proc: str = "/proc") -> tuple[int, str] | None:
    """This node's dirty freerun ceiling (mechanisms.dirty_freerun) from /proc/sys/vm and MemAvailable,
    and how it was read; None where /proc does not tell (not Linux)."""
    from pario.predict.mechanisms import dirty_freerun

    def number(name: str) -> int:
        with open(os.path.join(proc, "sys", "vm", name), encoding="ascii") as fh:
            return int(fh.read().split()[0])
    try:
        vm = {n: number(n) for n in ("dirty_ratio", "dirty_background_ratio", "dirty_bytes",
                                     "dirty_background_bytes")}
        with open(os.path.join(proc, "meminfo"), encoding="ascii") as fh:
            kib = next(int(line.split()[1]) for line in fh if line.startswith("MemAvailable:"))
    except (OSError, ValueError, StopIteration, IndexError):
        return None
    limit = dirty_freerun(kib * 1024, vm["dirty_ratio"], vm["dirty_background_ratio"], vm["dirty_bytes"],
                          vm["dirty_background_bytes"])
    how = (f"/proc/sys/vm (dirty_ratio {vm['dirty_ratio']}, dirty_background_ratio {vm['dirty_background_ratio']}"
           f", dirty_bytes {vm['dirty_bytes']}) and MemAvailable {kib >> 10} MiB: the dirty freerun ceiling")
    return (limit, how) if limit > 0 else None


def _kind(directory: str) -> str:
    from pario.platform import fsinfo
    name = fsinfo.describe(directory).get("type") or "local"
    return name if name in systems.KINDS else "nfs" if name.startswith("nfs") else "local"


@dataclass
class Sample:
    """One probe case: its pattern and the seconds each round measured (that run's median)."""
    label: str
    pattern: Pattern
    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def spread(self) -> float:
        """The slowest round over the fastest."""
        return max(self.seconds) / min(self.seconds)


def measure(directory: str, ranks: int, kind: str, unit: int, reps: int, rounds: int,
            between: Callable[[int], None] | None = None) -> list[Sample]:
    """Every probe, `rounds` times over, alternated: the five probes in turn, in reverse order every
    other round, so that a slow minute of a shared machine falls on every probe alike rather than
    on one. `between(round)` runs after each round (benchmarks/predict/this_machine.py measures its
    own cases there, in the same minutes as the probes)."""
    plan = probes(ranks, unit, kind)
    samples: dict[str, Sample] = {}
    with tempfile.TemporaryDirectory(prefix="pario-calibrate-") as tmp:
        db = os.path.join(tmp, "probes.sqlite")
        for r in range(rounds):
            order = list(enumerate(plan, 1))
            for i, (what, n, probe) in (order if r % 2 == 0 else order[::-1]):
                print(f"pario: round {r + 1}/{rounds}, probe {i}/{len(plan)}: {what} ({n} rank{'s' if n > 1 else ''})",
                      file=sys.stderr)
                for row, case in zip(_bench(directory, n, probe, reps, db), probe):
                    seconds = measured(row)
                    if seconds:
                        name = str(case["name"])
                        samples.setdefault(name, Sample(name, _pattern(case, n))).seconds.append(seconds)
            if between is not None:
                between(r)
    return [s for s in samples.values() if s.seconds]


def fit_figures(sys_: systems.System, kind: str, cases: list[tuple[Pattern, float]],
                start: dict[str, float] | None = None, quiet: bool = False) -> tuple[dict[str, float], float]:
    """The figures the probes tell apart, fitted to (pattern, seconds) pairs: (values, loss). A figure
    whose value moves no prediction is left out (kept as the system file has it)."""
    names = _fits(kind)
    begin = {n: float(sys_[n]) for n in names}

    def residuals(values: dict[str, float]) -> list[float]:
        s = sys_.with_values(values)
        return [math.log(predict(s, pat).seconds / secs) for pat, secs in cases]

    lo = {n: v / 1e4 for n, v in begin.items()}
    hi = {n: min(v * 1e4, 1e12) if sys_.params[n].value > 1 else v * 1e4 for n, v in begin.items()}
    values, loss = fit({**begin, **(start or {})}, residuals, lo=lo, hi=hi)
    for name in list(values):
        moved = [abs(sum(r * r for r in residuals({**values, name: values[name] * f})) - loss) for f in (0.5, 2.0)]
        if max(moved) < 1e-6 * max(1.0, loss):
            if not quiet:
                print(f"pario: {name}: the probes do not tell it here (never the binding limit); kept as it was",
                      file=sys.stderr)
            del values[name]
    return values, loss


def spreads(sys_: systems.System, kind: str, samples: list[Sample], values: dict[str, float]) -> dict[str, float]:
    """How far each figure moves between rounds: the figures fitted to each round's seconds alone,
    and per figure the square root of its largest over its smallest (the factor either way around
    the middle). 1 when there is one round."""
    rounds = min((len(s.seconds) for s in samples), default=0)
    if rounds < 2:
        return {n: 1.0 for n in values}
    per_round = [fit_figures(sys_, kind, [(s.pattern, s.seconds[r]) for s in samples], values, quiet=True)[0]
                 for r in range(rounds)]
    out = {}
    for name in values:
        got = [v[name] for v in per_round if name in v]
        out[name] = math.sqrt(max(got) / min(got)) if len(got) > 1 else 1.0
    return out


def calibrate(args: argparse.Namespace) -> int:
    path = target(args.system)
    directory = os.path.abspath(args.dir or os.environ.get("PARIO_SCRATCH") or "pario-scratch")
    os.makedirs(directory, exist_ok=True)
    sys_, kind, ranks, unit = prepare(path, directory, args.ranks_per_node)
    samples = measure(directory, ranks, kind, unit, args.reps or 3, args.rounds or ROUNDS)
    fitted = write(sys_, path, kind, ranks, samples, directory)
    print(f"{'probe':<14} {'median':>10} {'slowest/fastest':>16} {'fitted model':>13}")
    for s in samples:
        print(f"  {s.label:<12} {s.median:>8.4g} s {s.spread:>15.2f}x {predict(fitted, s.pattern).seconds:>11.4g} s")
    return 0


def target(path: str) -> str:
    """The file --calibrate will write, checked before anything runs or is written: an existing
    system file (read and checked now), else a new .toml file in a directory that exists. A shipped
    system's name (--system archer2, which predict reads as the shipped file) is refused: the
    calibration of this machine belongs in a file of the user's own, not in ./archer2 nor in pario's
    installed copy."""
    if os.path.isdir(path):
        raise ParioError(f"--system {path}: is a directory; give a system file (.toml) to write the calibration into")
    if os.path.exists(path):
        systems.load(path)
        where = os.path.dirname(os.path.abspath(path))
        if not (os.access(path, os.W_OK) and os.access(where, os.W_OK)):
            raise ParioError(f"--system {path}: cannot write it (or {path}.orig beside it); "
                             "calibrate a copy you can write: --system mine.toml")
        return path
    base = os.path.basename(path)
    if os.sep not in path and not path.endswith(".toml"):
        try:
            shipped = str(systems.system_file(path))
        except FileNotFoundError:
            shipped = None
        if shipped is not None:
            raise ParioError(f"--calibrate --system {path}: {path} is pario's shipped system file ({shipped}); "
                             f"calibrate a copy of your own: cp {shipped} {path}.toml, then --system {path}.toml")
    if not base.endswith(".toml"):
        raise ParioError(f"--system {path}: no such file{did_you_mean(base, systems.shipped_names())}; --calibrate "
                         f"creates a new system file only under a name ending in .toml: --system {path}.toml")
    where = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(where):
        raise ParioError(f"--system {path}: "
                         f"directory {where} does not exist; create it or give a path in one that does")
    if not os.access(where, os.W_OK):
        raise ParioError(f"--system {path}: cannot write in {where}; give a path in a directory you can write")
    return path


# Rounds of the five probes by default: enough for a median and a spread on a shared machine.
ROUNDS = 3


def prepare(path: str, directory: str, ranks_per_node: int | None) -> tuple[systems.System, str, int, int]:
    """(the system to calibrate, the file system's kind, ranks of the probes, the lock unit): the
    system file if it exists, else a new one; the cores and what the site's tools state, read now."""
    kind = _kind(directory)
    if os.path.exists(path):
        sys_ = systems.load(path)
    else:
        sys_ = systems.from_dict({"system": {"name": socket.gethostname()}, "fs": {"kind": kind}}, path)
    from pario.platform import host
    ranks = max(1, min(4, ranks_per_node or host.cpus()))
    when, where = _now(), f"{socket.gethostname()}:{directory}"
    sys_.params["cores"] = systems.Param("cores", host.cpus(), "stated", "os.sched_getaffinity", when, where,
                                         "the cores this process may run on")
    for name, (value, how) in site_facts(directory, kind).items():
        sys_.params[name] = systems.Param(name, value, "stated", how, when, where, how)
    if kind in ("local", "nfs") and sys_.status("servers") == "default":  # one device, one server
        sys_.params["servers"] = systems.Param("servers", 1, "stated", f"a {kind} file system: one server", when,
                                               where, "the file system's kind")
    impl, how = _mpiio()
    if impl and sys_.status("impl") == "default":
        sys_.params["impl"] = systems.Param("impl", impl, "stated", how, when, where, how)
    return sys_, kind, ranks, int(sys_["lock_unit"] if kind == "gpfs" else sys_["stripe_size"])


def _mpiio() -> tuple[str | None, str]:
    """The MPI-IO the probes run with: Cray MPICH (its environment), Open MPI's io component in
    effect (OMPIO or ROMIO), ROMIO under MPICH and Intel MPI; (None, "") when it is not known."""
    if os.environ.get("CRAY_MPICH_VERSION") or os.environ.get("CRAY_MPICH_DIR"):
        return "cray", "$CRAY_MPICH_VERSION / $CRAY_MPICH_DIR: Cray MPICH"
    from pario.platform.stack import mpi_facts
    mpi = mpi_facts(None, None)
    if not mpi.get("available") or mpi.get("flavour") not in ("openmpi", "mpich", "intel"):
        return None, ""
    return str(mpi["mpiio"]), f"pario stack: {mpi.get('version')}, its MPI-IO in effect"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def write(sys_: systems.System, path: str, kind: str, ranks: int, samples: list[Sample], directory: str) \
        -> systems.System:
    """Fit the figures to the probes' medians, measure their spread over the rounds, and write them
    into the system file with when, where and how (predict/sysfile.py: the author's other lines and
    comments kept; the author's file also kept as FILE.orig). Returns the system as written."""
    if not samples:
        raise ParioError("--calibrate: no probe measured anything; see the messages above")
    values, loss = fit_figures(sys_, kind, [(s.pattern, s.median) for s in samples])
    spread = spreads(sys_, kind, samples, values)
    rounds = min(len(s.seconds) for s in samples)
    how = (f"pario predict --calibrate: {len(samples)} probe cases ({ranks} ranks at most) x {rounds} rounds "
           f"alternated, fitted to their medians (rms log error {math.sqrt(loss / len(samples)):.2f}); spread: "
           "the fits of single rounds")
    when, where = _now(), f"{socket.gethostname()}:{directory}"
    for name, value in values.items():
        sys_.params[name] = systems.Param(name, value, "calibrated", "measured", when, where, how,
                                          round(spread[name], 3))
    text, kept = sysfile.dump(sys_), ""
    if os.path.exists(path):
        import shutil
        if not os.path.exists(path + ".orig"):
            shutil.copy2(path, path + ".orig")  # the file as its author wrote it, comments and all
        with open(path, encoding="utf-8") as fh:
            author = fh.read()
        edited = sysfile.rewrite(author, systems.load(path), sys_)
        if edited is not None:
            text, kept = edited, "; its other lines and comments kept"
        else:
            kept = (f"; written whole: {path} could not be edited line by line, so its comments are gone "
                    f"(the author's file: {path}.orig)")
    tmp_path = path + ".tmp"
    with open(tmp_path, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp_path, path)
    print(f"pario: wrote {len(values)} calibrated figures into {path}{kept}")
    for name in values:
        print(f"  {name} = {sys_[name]:.4g}" + (f" (rounds moved it x{spread[name]:.2f} either way)"
                                                if spread[name] > 1 else ""))
    return sys_


def _pattern(case: dict[str, Any], ranks: int) -> Pattern:
    from pario.plan.cases import build_case
    built = build_case({k: v for k, v in case.items() if k != "name"})
    return from_case(built, {"nodes": 1, "ranks_per_node": ranks})
