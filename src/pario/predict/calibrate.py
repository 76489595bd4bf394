"""`pario predict --calibrate`: measure a mounted directory with at most five short `pario bench`
probes and write the fitted figures into the system file, each with when, where and how. The
site's own tools are read first where they exist (`lfs df` for the OST count, `lfs getstripe -d`
for the default layout, `mmlsfs -B` for the GPFS block); what they state is recorded as stated.

The probes (each one `pario bench` run, short sizes): 1 a large-transfer file per process by one
rank (one process's rate); 2 the same by every rank here (the node's and the servers' ceiling);
3 a shared file, collective and independent, pieces below and at the lock unit (collective calls,
lock conflicts); 4 metadata creates (per file, per stripe on Lustre); 5 512-byte writes (the cost
of one call). The model then predicts each probe case and the fit moves the figures until the
predictions match the medians measured (predict/fit.py)."""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
from typing import Any

from pario.model.errors import ParioError
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
    names = ["process_bw", "server_bw", "collective_call_cost", "call_latency", "file_cost", "copy_bw"]
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
        for key, field in (("stripe_count", "stripe_count"), ("stripe_size", "stripe_unit")):
            if isinstance(layout.get(field), int) and layout[field] > 0:
                out[key] = (layout[field], f"getfattr -n ceph.dir.layout ({facts.get('layout_source')})")
    if kind == "gpfs":
        device = fsinfo.mount_of(directory).get("source", "")
        text = fsinfo.run_tool(["mmlsfs", os.path.basename(device), "-B"]) if device else None
        block = fsinfo.parse_mmlsfs(text).get("block_size") if text else None
        if block:
            out["lock_unit"] = (block, f"mmlsfs {os.path.basename(device)} -B")
    return out


def _kind(directory: str) -> str:
    from pario.platform import fsinfo
    name = fsinfo.describe(directory).get("type") or "local"
    return name if name in systems.KINDS else "nfs" if name.startswith("nfs") else "local"


def dump(sys_: systems.System) -> str:
    """The system as a TOML file: every figure that is not pario's default, with its provenance."""
    lines = ["# Written by `pario predict --calibrate`: calibrated figures say when, where and how.",
             "", "[system]", f"name = {json.dumps(sys_.name)}"]
    if sys_.description:
        lines.append(f"description = {json.dumps(sys_.description)}")
    for section in systems.SECTIONS[1:]:
        lines += ["", f"[{section}]"]
        for name, spec in systems.SPECS.items():
            p = sys_.params.get(name)
            if spec.section != section or p is None or p.status == "default" or p.source.startswith("as "):
                continue
            meta = {"value": p.value, "status": p.status}
            meta.update({k: getattr(p, k) for k in ("source", "when", "where", "how") if getattr(p, k)})
            body = ", ".join(f"{k} = {_toml(v)}" for k, v in meta.items())
            lines.append(f"{name} = {{ {body} }}")
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "0"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))


def calibrate(args: argparse.Namespace) -> int:
    path = args.system
    directory = os.path.abspath(args.dir or os.environ.get("PARIO_SCRATCH") or "pario-scratch")
    os.makedirs(directory, exist_ok=True)
    kind = _kind(directory)
    if os.path.exists(path):
        sys_ = systems.load(path)
    else:
        sys_ = systems.from_dict({"system": {"name": socket.gethostname()}, "fs": {"kind": kind}}, path)
    from pario.platform import host
    ranks = max(1, min(4, args.ranks_per_node or host.cpus()))
    where = f"{socket.gethostname()}:{directory}"
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    sys_.params["cores"] = systems.Param("cores", host.cpus(), "stated", "os.sched_getaffinity", when, where,
                                         "the cores this process may run on")
    for name, (value, how) in site_facts(directory, kind).items():
        sys_.params[name] = systems.Param(name, value, "stated", how, when, where, how)
    unit = int(sys_["lock_unit"] if kind == "gpfs" else sys_["stripe_size"])
    cases: list[tuple[Pattern, float]] = []
    names_: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pario-calibrate-") as tmp:
        db = os.path.join(tmp, "probes.sqlite")
        for i, (what, n, probe) in enumerate(probes(ranks, unit, kind), 1):
            print(f"pario: probe {i}/5: {what} ({n} rank{'s' if n > 1 else ''})", file=sys.stderr)
            for row, case in zip(_bench(directory, n, probe, args.reps or 3, db), probe):
                seconds = measured(row)
                if seconds:
                    cases.append((_pattern(case, n), seconds))
                    names_.append(str(case["name"]))
    names = [n for n in _fits(kind)]
    start = {n: float(sys_[n]) for n in names}

    def residuals(values: dict[str, float]) -> list[float]:
        s = sys_.with_values(values)
        return [math.log(predict(s, pat).seconds / secs) for pat, secs in cases]

    lo = {n: v / 1e4 for n, v in start.items()}
    hi = {n: min(v * 1e4, 1e12) if sys_.params[n].value > 1 else v * 1e4 for n, v in start.items()}
    values, loss = fit(start, residuals, lo=lo, hi=hi)
    # a figure the probes do not tell (its value moves no prediction) keeps what it was
    for name in list(values):
        moved = [abs(sum(r * r for r in residuals({**values, name: values[name] * f})) - loss) for f in (0.5, 2.0)]
        if max(moved) < 1e-6 * max(1.0, loss):
            print(f"pario: {name}: the probes do not tell it here (never the binding limit); kept as it was",
                  file=sys.stderr)
            del values[name]
    how = (f"pario predict --calibrate: {len(cases)} probe cases ({ranks} ranks at most), fitted "
           f"(rms log error {math.sqrt(loss / max(1, len(cases))):.2f})")
    for name, value in values.items():
        sys_.params[name] = systems.Param(name, value, "calibrated", "measured", when, where, how)
    if os.path.exists(path) and not os.path.exists(path + ".orig"):
        import shutil
        shutil.copy2(path, path + ".orig")  # the file as its author wrote it, comments and all
    tmp_path = path + ".tmp"
    with open(tmp_path, "w", encoding="utf-8") as fh:
        fh.write(dump(sys_))
    os.replace(tmp_path, path)
    fitted = sys_.with_values(values)
    print("probe           measured  fitted model")
    for label, (pat, secs) in zip(names_, cases):
        print(f"  {label:<12} {secs:>9.4g} s {predict(fitted, pat).seconds:>9.4g} s")
    print(f"pario: wrote {len(values)} calibrated figures into {path}")
    for name in values:
        print(f"  {name} = {sys_[name]:.4g}")
    return 0


def _pattern(case: dict[str, Any], ranks: int) -> Pattern:
    from pario.plan.cases import build_case
    built = build_case({k: v for k, v in case.items() if k != "name"})
    return from_case(built, {"nodes": 1, "ranks_per_node": ranks})
