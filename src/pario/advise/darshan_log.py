"""A Darshan log as the job model, read with PyDarshan (the `darshan` package, which bundles
libdarshan-util).

Darshan logs are untrusted binary input parsed by C code: a corrupt or truncated log can make
libdarshan-util crash the process (measured: 39 of 40 randomly corrupted copies of one log ended in
SIGSEGV or SIGABRT) or read on with fewer records while printing "Error: ..." lines. So the log
is read in a child process (`python -m pario.advise.darshan_log LOG` prints the job as JSON): a
crash becomes one clear line, and the library's complaints name the log as truncated or corrupt."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from pario.advise import apart, darshan_libs
from pario.advise.job import Bucket, Job, Rec, Sizes
from pario.advise.libjob import LibRec
from pario.model.errors import ParioError
from pario.platform import documents

NOT_INSTALLED = ("reading Darshan logs needs PyDarshan: pip install 'pario[darshan]' (or pip install darshan) "
                 "into the environment that runs pario, or rerun `make setup`")
# Darshan's buckets end at the power of 1024 (inclusive): 100K_1M is 102401..1048576
_EDGES = {"0_100": (0, 100), "100_1K": (101, 1024), "1K_10K": (1025, 10240), "10K_100K": (10241, 102400),
          "100K_1M": (102401, 1048576), "1M_4M": (1048577, 4194304), "4M_10M": (4194305, 10485760),
          "10M_100M": (10485761, 104857600), "100M_1G": (104857601, 1073741824), "1G_PLUS": (1073741825, None)}
MODULES = {"POSIX": "posix", "MPI-IO": "mpiio", "STDIO": "stdio"}
TIMEOUT_S = 300.0
LIMIT = 1 << 32   # bytes of one log: Darshan logs are compressed; a large job's are hundreds of MB


def available() -> bool:
    try:
        import importlib.util
        return importlib.util.find_spec("darshan") is not None
    except (ImportError, ValueError):
        return False


def is_darshan(path: str) -> bool:
    """A Darshan log by its name or its first bytes (the version string "3.xx" of the header)."""
    return path.endswith((".darshan", ".darshan.gz", ".darshan_partial")) or _looks_like_header(path)


def _looks_like_header(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError:
        return False
    return len(head) == 8 and head[:2] == b"3." and head[2:4].isdigit()


# ---- the child: PyDarshan -> plain JSON ---------------------------------------------------------

def _v(c: dict[str, Any], key: str) -> int | None:
    """A counter, None when Darshan did not collect it (-1) or the module version lacks it."""
    value = c.get(key)
    if value is None:
        return None
    value = int(value)
    return None if value < 0 else value


def _f(c: dict[str, Any], key: str) -> float | None:
    value = c.get(key)
    if value is None:
        return None
    value = float(value)
    return None if value < 0 else value


def _sizes(c: dict[str, Any], head: str, prefix: str) -> Sizes:
    buckets = []
    for name, (lo, hi) in _EDGES.items():
        count = _v(c, f"{head}_{name}")
        if count:
            buckets.append(Bucket(lo, hi, count))
    exact: dict[int, int] = {}
    for k in range(1, 5):
        size, count = _v(c, f"{prefix}_ACCESS{k}_ACCESS"), _v(c, f"{prefix}_ACCESS{k}_COUNT")
        if size and count:
            exact[size] = exact.get(size, 0) + count
    return Sizes(exact=exact, buckets=buckets)


def _record(module: str, path: str, raw: dict[str, Any], nprocs: int) -> Rec:
    c, f = raw["counters"], raw["fcounters"]
    p = {"posix": "POSIX", "mpiio": "MPIIO", "stdio": "STDIO"}[module]
    rank = int(raw["rank"])
    rec = Rec(module=module, path=path, rank=rank, nprocs=nprocs if rank < 0 else 1,
              bytes_read=_v(c, f"{p}_BYTES_READ") or 0, bytes_written=_v(c, f"{p}_BYTES_WRITTEN") or 0,
              read_time=_f(f, f"{p}_F_READ_TIME") or 0.0, write_time=_f(f, f"{p}_F_WRITE_TIME") or 0.0,
              meta_time=_f(f, f"{p}_F_META_TIME") or 0.0,
              fastest_rank=_v(c, f"{p}_FASTEST_RANK"), slowest_rank=_v(c, f"{p}_SLOWEST_RANK"),
              fastest_rank_bytes=_v(c, f"{p}_FASTEST_RANK_BYTES"), slowest_rank_bytes=_v(c, f"{p}_SLOWEST_RANK_BYTES"),
              fastest_time=_f(f, f"{p}_F_FASTEST_RANK_TIME"), slowest_time=_f(f, f"{p}_F_SLOWEST_RANK_TIME"),
              variance_time=_f(f, f"{p}_F_VARIANCE_RANK_TIME"), variance_bytes=_f(f, f"{p}_F_VARIANCE_RANK_BYTES"))
    if module == "posix":
        rec.opens = _v(c, "POSIX_OPENS") or 0
        rec.reads, rec.writes = _v(c, "POSIX_READS") or 0, _v(c, "POSIX_WRITES") or 0
        rec.seeks, rec.stats = _v(c, "POSIX_SEEKS"), _v(c, "POSIX_STATS")
        syncs = [_v(c, "POSIX_FSYNCS"), _v(c, "POSIX_FDSYNCS")]
        rec.fsyncs = sum(x for x in syncs if x is not None) if any(x is not None for x in syncs) else None
        rec.max_byte_read, rec.max_byte_written = _v(c, "POSIX_MAX_BYTE_READ"), _v(c, "POSIX_MAX_BYTE_WRITTEN")
        rec.seq_reads, rec.seq_writes = _v(c, "POSIX_SEQ_READS"), _v(c, "POSIX_SEQ_WRITES")
        rec.consec_reads, rec.consec_writes = _v(c, "POSIX_CONSEC_READS"), _v(c, "POSIX_CONSEC_WRITES")
        rec.rw_switches = _v(c, "POSIX_RW_SWITCHES")
        rec.not_aligned, rec.alignment = _v(c, "POSIX_FILE_NOT_ALIGNED"), _v(c, "POSIX_FILE_ALIGNMENT")
        rec.read_sizes = _sizes(c, "POSIX_SIZE_READ", "POSIX")
        rec.write_sizes = _sizes(c, "POSIX_SIZE_WRITE", "POSIX")
        # Darshan keeps the 4 most common sizes of reads and writes together: a size belongs to
        # the direction whose histogram has its bucket
        _split_exact(rec)
    elif module == "mpiio":
        rec.opens = (_v(c, "MPIIO_INDEP_OPENS") or 0) + (_v(c, "MPIIO_COLL_OPENS") or 0)
        rec.indep_reads, rec.indep_writes = _v(c, "MPIIO_INDEP_READS"), _v(c, "MPIIO_INDEP_WRITES")
        rec.coll_reads = (_v(c, "MPIIO_COLL_READS") or 0) + (_v(c, "MPIIO_SPLIT_READS") or 0)
        rec.coll_writes = (_v(c, "MPIIO_COLL_WRITES") or 0) + (_v(c, "MPIIO_SPLIT_WRITES") or 0)
        rec.nb_reads, rec.nb_writes = _v(c, "MPIIO_NB_READS"), _v(c, "MPIIO_NB_WRITES")
        rec.reads = (rec.indep_reads or 0) + rec.coll_reads + (rec.nb_reads or 0)
        rec.writes = (rec.indep_writes or 0) + rec.coll_writes + (rec.nb_writes or 0)
        rec.views, rec.fsyncs = _v(c, "MPIIO_VIEWS"), _v(c, "MPIIO_SYNCS")
        rec.rw_switches = _v(c, "MPIIO_RW_SWITCHES")
        rec.read_sizes = _sizes(c, "MPIIO_SIZE_READ_AGG", "MPIIO")
        rec.write_sizes = _sizes(c, "MPIIO_SIZE_WRITE_AGG", "MPIIO")
        _split_exact(rec)
    else:
        rec.opens = (_v(c, "STDIO_OPENS") or 0)
        rec.reads, rec.writes = _v(c, "STDIO_READS") or 0, _v(c, "STDIO_WRITES") or 0
        rec.seeks, rec.fsyncs = _v(c, "STDIO_SEEKS"), _v(c, "STDIO_FLUSHES")
        rec.max_byte_read, rec.max_byte_written = _v(c, "STDIO_MAX_BYTE_READ"), _v(c, "STDIO_MAX_BYTE_WRITTEN")
    return rec


def _split_exact(rec: Rec) -> None:
    """A size goes to the direction whose histogram has its bucket; a size whose bucket both
    directions have goes to both, at most that bucket's count in each (IOR reads back the
    transfer size it wrote: the one common size, counted once for the two directions)."""
    both = dict(rec.read_sizes.exact)
    rec.read_sizes.exact, rec.write_sizes.exact = {}, {}
    for size, count in both.items():
        for sizes in (rec.read_sizes, rec.write_sizes):
            room = sum(b.count for b in sizes.buckets if b.lo <= size and (b.hi is None or size <= b.hi))
            if room:
                sizes.exact[size] = min(count, room)


def _fs_of(path: str, mounts: list[tuple[str, str]]) -> str | None:
    best = None
    for point, fstype in mounts:
        if (path == point or path.startswith(point.rstrip("/") + "/")) and (best is None or len(point) > len(best[0])):
            best = (point, fstype)
    return best[1] if best else None


def convert(path: str) -> dict[str, Any]:
    """The job model of one Darshan log, as a plain dict (runs in the child)."""
    from darshan.backend import cffi_backend as be

    log = be.log_open(path)
    if log["handle"] == be.ffi.NULL:
        raise ValueError("libdarshan-util cannot open it")
    job = be.log_get_job(log)
    modules = be.log_get_modules(log)
    names = be.log_get_name_records(log)
    mounts = be.log_get_mounts(log)
    nprocs = int(job.get("nprocs") or 1)
    out = Job(source=path, format="darshan", nprocs=nprocs, run_time=float(job.get("run_time") or 0) or None,
              command=be.log_get_exe(log), mounts=dict(mounts), jobid=str(job.get("jobid", "")))
    for mod, info in modules.items():
        if info.get("partial_flag"):
            out.partial.append(f"the Darshan runtime ran out of room for {mod} records (partial flag set): "
                               "files were left out (raise DARSHAN_MODMEM or MAX_RECORDS and rerun)")
    lustre: dict[int, tuple[int, int]] = {}
    if "LUSTRE" in modules:
        while (rec := be.log_get_record(log, "LUSTRE", dtype="dict")) is not None:
            comps = rec.get("components") or []
            if comps:
                cc = comps[-1]["counters"]
                lustre[int(rec["id"])] = (int(cc.get("LUSTRE_COMP_STRIPE_SIZE", 0)),
                                          int(cc.get("LUSTRE_COMP_STRIPE_COUNT", 0)))
    for mod, lib in (("H5F", "HDF5"), ("H5D", "HDF5"), ("PNETCDF_FILE", "PnetCDF"), ("PNETCDF_VAR", "PnetCDF")):
        if mod in modules:
            while (raw := be.log_get_record(log, mod, dtype="dict")) is not None:
                name = names.get(raw["id"])
                if name:   # H5D and PNETCDF_VAR records name the file they belong to
                    out.lib_files.setdefault(name.split(":", 1)[0], lib)
                    if mod == "H5F":
                        out.libs.append(darshan_libs.h5f(name, raw, nprocs))
                    elif mod == "H5D":
                        out.libs.append(darshan_libs.h5d(name, raw, nprocs))
    for mod, module in MODULES.items():
        if mod not in modules:
            continue
        while (raw := be.log_get_record(log, mod, dtype="dict")) is not None:
            name = names.get(raw["id"], f"<record {raw['id']:x}>")
            rec = _record(module, name, raw, nprocs)
            rec.fs = _fs_of(name, mounts)
            if int(raw["id"]) in lustre:
                rec.stripe_size, rec.stripe_count = lustre[int(raw["id"])]
            out.records.append(rec)
    out.libs = darshan_libs.reduced(out.libs)
    darshan_libs.collective_done(out.libs, out.records)
    return out.to_dict()


# ---- the parent: run the child, judge what it says -----------------------------------------------

def _job_from_dict(doc: dict[str, Any]) -> Job:
    recs = []
    for r in doc.pop("records"):
        for key in ("read_sizes", "write_sizes"):
            s = r[key]
            r[key] = Sizes(exact={int(k): v for k, v in s["exact"].items()},
                           buckets=[Bucket(**b) for b in s["buckets"]])
        r["strides"] = {int(k): v for k, v in r["strides"].items()}
        recs.append(Rec(**r))
    libs = [LibRec(**{**d, "sizes": {int(k): v for k, v in d["sizes"].items()}}) for d in doc.pop("libs", [])]
    return Job(records=recs, libs=libs, **doc)


MARK = "@@pario-advise-log "


def _judge(path: str, doc: dict[str, Any] | None, complaints: list[str], signal: int | None) -> Job:
    """The job of one log from what the child printed for it, or the one line that says why not."""
    if doc is None or "error" in doc:
        why = (doc or {}).get("error") or (complaints[0] if complaints else None)
        if signal:
            why = f"libdarshan-util crashed on it (signal {signal})" + (f" after: {why}" if why else "")
        if (why and "cannot open" in why) or any("header" in c for c in complaints):
            if _looks_like_header(path):
                raise ParioError(f"{path}: the Darshan log is truncated: {os.path.getsize(path)} bytes, not even "
                                 "its whole header; give a complete copy of the log")
            raise ParioError(f"{path}: not a Darshan log (libdarshan-util cannot read its header); give a "
                             ".darshan file written by the Darshan runtime")
        raise ParioError(f"{path}: the Darshan log is truncated or corrupt ({why or 'no records read'}); "
                         "give a complete copy of the log")
    job = _job_from_dict(doc)
    argv = job.command.split()
    job.exes = argv[:1]
    apart.separate(job, job.exes, apart.scripts([(argv[0], argv, "")] if argv else []))
    if complaints or signal:
        what = complaints[0] if complaints else f"libdarshan-util ended with signal {signal}"
        job.partial.insert(0, f"the log is truncated or corrupt: libdarshan-util said \"{what}\"; "
                              "the records after that point are missing")
    return job


def read_many(paths: list[str]) -> list[Job | ParioError]:
    """Each log's job, or the error that says why it could not be read, in order. One child reads
    them all (PyDarshan takes a second to import); when it crashes, the log it was on is named and
    the child starts again after it."""
    results: dict[int, Job | ParioError] = {}
    for i, path in enumerate(paths):
        if not os.path.isfile(path):
            results[i] = ParioError(f"Darshan log {path} does not exist (or is not a file)")
            continue
        try:  # untrusted: a regular file of a bounded size before libdarshan-util sees it (platform.documents)
            documents.regular_file(path, "Darshan log", LIMIT)
        except ParioError as exc:
            results[i] = exc
            continue
        if not available():
            results[i] = ParioError(f"{path}: {NOT_INSTALLED}")
    order = [i for i in range(len(paths)) if i not in results]
    for i, got in zip(order, _read_files([paths[i] for i in order])):
        results[i] = got
    return [results[i] for i in range(len(paths))]


def _read_files(paths: list[str]) -> list[Job | ParioError]:
    out: list[Job | ParioError] = []
    todo = list(paths)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))] + env.get("PYTHONPATH", "").split(os.pathsep) if p)
    while todo:
        try:
            proc = subprocess.run([sys.executable, "-m", "pario.advise.darshan_log", *todo], capture_output=True,
                                  text=True, timeout=TIMEOUT_S * len(todo), env=env)
            stdout, stderr, code = proc.stdout, proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as exc:
            stdout = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            code = -9
        docs: dict[int, dict[str, Any]] = {}
        for line in stdout.splitlines():
            if line.startswith("{"):
                try:
                    d = json.loads(line)
                    docs[int(d.pop("_index"))] = d
                except (ValueError, KeyError):
                    pass
        said: dict[int, list[str]] = {}
        current = -1
        for line in stderr.splitlines():
            if line.startswith(MARK):
                current = int(line[len(MARK):])
            elif line.strip().startswith("Error") and current >= 0:
                said.setdefault(current, []).append(line.strip())
        reached = max([current, *docs]) if (docs or current >= 0) else -1
        done = reached + 1 if code == 0 else max(reached, 0) + 1
        for i in range(min(done, len(todo))):
            crashed = code != 0 and i == reached
            try:
                out.append(_judge(todo[i], docs.get(i), said.get(i, []), -code if crashed and code < 0 else None))
            except ParioError as exc:
                out.append(exc)
        todo = todo[done:]
    return out


def read(path: str) -> Job:
    got = read_many([path])[0]
    if isinstance(got, ParioError):
        raise got
    return got


def main(argv: list[str]) -> int:
    for index, path in enumerate(argv):
        sys.stderr.write(f"{MARK}{index}\n")
        sys.stderr.flush()
        try:
            doc = convert(path)
        except Exception as exc:  # noqa: BLE001 - whatever the library raised becomes one line for the parent
            doc = {"error": f"{type(exc).__name__}: {exc}"}
        doc["_index"] = index
        sys.stdout.write(json.dumps(doc) + "\n")
        sys.stdout.flush()
        sys.stderr.flush()
    # skip interpreter shutdown: libdarshan-util's cleanup is where corrupt logs crash it
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
