"""What pario does around a run, each step timed on its own (benchmarks/startup/run.py's fifth
table): the steps are pario's own functions, called as a command calls them, in the interpreter
pario runs in (`measure` starts it: `python around.py WORK REPS` prints one JSON list), and the
imports a command pays when it runs, each in a fresh interpreter paired with `python -c pass`."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

# The imports a command pays when it runs (not for --help, nor for buffer and profile): what the
# lazy command table keeps out of every other command's start.
IMPORTS = [("numpy", "import numpy", "the analysis (summaries, noise test): bench, results, tune, advise"),
           ("rich", "import rich.console", "tables: bench, results, tune, advise, settings keys"),
           ("jsonschema", "import jsonschema", "reading a document: profile show, advise, report, import"),
           ("sqlite3 + store", "import pario.store", "every command that stores or reads runs"),
           ("optuna", "import optuna", "tune's search"),
           ("plotly", "import plotly.graph_objects", "report and --html pages"),
           ("jinja2", "import jinja2", "report and --html pages")]


def stats(seconds: list[float]) -> dict:
    return {"median_ms": 1e3 * statistics.median(seconds), "min_ms": 1e3 * min(seconds),
            "max_ms": 1e3 * max(seconds)}


def each(fn, reps: int) -> list[float]:
    out = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def steps(work: str, reps: int) -> list[dict]:
    """In pario's interpreter: each step as a command makes it."""
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "cache")  # the ceiling cache: this run's own
    os.environ["PARIO_DB"] = os.path.join(work, "runs.db")
    from pario.platform.ceiling import device_ceiling
    from pario.platform.engine import engine_listing, engine_path
    from pario.platform.mpi import detect, find_mpirun
    from pario.run.sentinel import Sentinel
    from pario.store import Store, spool

    rows = wrapper_steps(work, reps)

    def sentinel(private: bool) -> tuple[list[float], list[float]]:
        """(start, close) seconds of `reps` sentinels; the close comes once the sentinel is up, as
        after a run or a command's block (both take far longer than its start)."""
        started, closed = [], []
        for _ in range(reps):
            watcher = Sentinel()
            t = time.perf_counter()
            watcher.start(private=private)
            started.append(time.perf_counter() - t)
            time.sleep(0.3)
            t = time.perf_counter()
            watcher.close()
            closed.append(time.perf_counter() - t)
        return started, closed

    for private, what, who in (
            (True, "a run's sentinel", "each run of pario bench, each tune trial, pario stack's MPI probe when not "
                                       "cached"),
            (False, "a command's guard sentinel", "bench suites and presets, a tune session, advise --verify (not "
                                                  "a single case, --dry-run, --list, buffer, profile)")):
        started, closed = sentinel(private)
        wait = "until it has made the run's private directory" if private else "not waited for"
        rows.append({"what": f"{what}: its start ({wait})", "who": who, **stats(started)})
        rows.append({"what": f"{what}: its end (told, waited for)", "who": who, **stats(closed)})
    engine = engine_path()
    probe_dir = os.path.join(work, "probe")
    os.makedirs(probe_dir, exist_ok=True)
    first = device_ceiling(engine, probe_dir)  # the probe itself (seconds), once: then the cache
    looked = each(lambda: device_ceiling(engine, probe_dir), reps)
    rows.append({"what": f"device-ceiling lookup ({first.get('source')}, then cached)",
                 "who": "bench suites, each tune session", **stats(looked)})
    rows.append({"what": "engine --list (backends and their settings)", "who": "every bench and tune command",
                 **stats(each(lambda: engine_listing(engine), reps))})
    launcher = find_mpirun()
    rows.append({"what": f"{os.path.basename(launcher)} --version (the MPI behind the launcher)",
                 "who": "every command that launches MPI: bench, tune, stack, buffer -n, profile -n",
                 **stats(each(lambda: detect(launcher), reps))})
    from pario.platform import environment

    mpi = detect(launcher)
    t = time.perf_counter()
    environment.collect(directory=probe_dir, mpi=mpi, engine=engine, ranks=1)
    cold = time.perf_counter() - t
    rows.append({"what": "the run's environment record, stack facts gathered (ompi_info, library versions; "
                         "cached an hour)", "who": "the first run of the hour on a stack", **stats([cold])})
    rows.append({"what": "the run's environment record, stack facts from the cache",
                 "who": "each run of pario bench, each tune trial",
                 **stats(each(lambda: environment.collect(directory=probe_dir, mpi=mpi, engine=engine, ranks=1),
                              reps))})
    db = os.environ["PARIO_DB"]
    bench = [sys.executable, "-m", "pario", "bench", "-a", "null", "-n", "1", "-t", "4k", "-b", "64k", "-w",
             "-i", "1", "--no-probe", "--dir", os.path.join(work, "scratch")]
    subprocess.run(bench, check=True, capture_output=True)
    run = Store(db).get_run(1)
    fields = {k: run[k] for k in ("kind", "command", "spec", "env", "result", "status")}
    fields["headline"] = Store(db).list_runs(1)[0].get("headline") or ""
    rows.append({"what": "opening the store (schema checked)", "who": "every command that stores or reads runs",
                 **stats(each(lambda: Store(db), reps))})

    def write() -> None:  # as cli/store_run.py stores a run: its own file first, then the store
        store = Store(db)
        kept = spool.keep(store.path, fields)
        store.add_run(**fields)
        spool.discard(kept)

    rows.append({"what": f"writing a run to the store ({len(json.dumps(fields)) // 1024} KiB: a 1-case null run)",
                 "who": "each stored run: bench, each tune trial", **stats(each(write, reps))})
    return rows


def wrapper_steps(work: str, reps: int) -> list[dict]:
    """What `pario profile` and `pario buffer` do around the program, besides Python's and their
    modules' start (run.py's wrapper rows hold the whole): which MPI the program links, the parts
    directory, the merge of the parts into the job log."""
    import shutil
    from pathlib import Path

    from pario.profile import run as prun

    rows = []
    big = os.path.join(work, "bigprog-around")
    with open(shutil.which("true") or "/bin/true", "rb") as src, open(big, "wb") as dst:
        dst.write(src.read())
        for _ in range(64):
            dst.write(b"\x5a" * (1 << 20))
    os.chmod(big, 0o755)
    rows.append({"what": "which MPI a program links (its ELF headers and string table; a 64 MiB program)",
                 "who": "pario profile and pario buffer, each run",
                 **stats(each(lambda: prun.program_mpi([big]), reps))})
    out = Path(work) / "around.pario-profile.json"
    rows.append({"what": "the profile's parts directory, made and removed", "who": "pario profile, each run",
                 **stats(each(lambda: prun.remove_parts(prun.make_parts_dir(out)), reps))})
    lib = prun.preload_path()
    for nproc in (1, 4):
        parts = prun.make_parts_dir(out)
        for _ in range(nproc):  # the parts the library writes, as a run of `true` leaves them
            subprocess.run(["true"], env={**os.environ, "LD_PRELOAD": lib, "PARIO_PROFILE_DIR": str(parts)},
                           check=True)
        job = {"command": ["true"], "cwd": work, "launcher": "direct", "ranks": 0, "exit_code": 0, "start": 0.0,
               "end": 0.0}
        parts_of = "one process's part" if nproc == 1 else f"{nproc} processes' parts"
        rows.append({"what": f"merging {parts_of} into the job log, written",
                     "who": "pario profile" + (f" -n {nproc}" if nproc > 1 else ""),
                     **stats(each(lambda parts=parts, job=job: prun.merge(parts, out, dict(job)), reps))})
        prun.remove_parts(parts)
    out.unlink(missing_ok=True)
    return rows


def imports(python: str, reps: int) -> list[dict]:
    rows = []
    for name, code, who in IMPORTS:
        added = []
        for k in range(reps):
            got = {}
            for key in (("bare", "mod") if k % 2 == 0 else ("mod", "bare")):
                start = time.perf_counter()
                proc = subprocess.run([python, "-c", "pass" if key == "bare" else code], capture_output=True)
                got[key] = time.perf_counter() - start
                if proc.returncode != 0:
                    break
            if proc.returncode != 0:
                added = []
                break
            added.append(got["mod"] - got["bare"])
        if added:
            rows.append({"what": f"importing {name} (fresh interpreter, over `python -c pass`)", "who": who,
                         **stats(added)})
    return rows


def measure(python: str, work: str, reps: int) -> list[dict]:
    """The rows of run.py's table: the steps in pario's interpreter, then the imports."""
    out = subprocess.run([python, __file__, work, str(reps)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"around.py failed: {out.stderr[-800:]}")
    return json.loads(out.stdout) + imports(python, reps)


if __name__ == "__main__":
    print(json.dumps(steps(sys.argv[1], int(sys.argv[2]))))
