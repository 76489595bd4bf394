#!/usr/bin/env python3
"""What pario's front end costs (issue 31), not a timed test: this machine is shared and noisy,
so every figure is a median over alternated pairs, each pair run back to back.

1. Start-up: `pario --version`, `pario --help` and `pario COMMAND --help` for every command,
   each paired with the bare interpreter (`python -c pass`); target: at most 0.10 s.
2. What `import pario.cli` loads (a fresh interpreter): none of numpy, plotly, jinja2, optuna,
   rich nor pario's analysis, report, tune and advise code.
3. Wrapping a program that does nothing (/bin/true): `pario buffer -- PROG` and `pario profile
   -- PROG` against PROG alone, target at most 0.05 s more; the same with `-n 4` against
   `mpirun -n 4 PROG` (with the flags this machine needs: --oversubscribe, --allow-run-as-root
   as root), target at most 0.1 s more. And a large program, BIGPROG (PROG padded to 64 MiB):
   what a wrapper reads of it to know its MPI shows there.
4. `pario buffer -- smallwrites -n 200000 OUT` (benchmarks/buffer/smallwrites.c: 200,000 x 512 B
   write() calls) against the plain program, end to end; target: faster in every pair.
5. What pario does around a run, timed in one process (around.py): a run's sentinel, a command's
   guard sentinel, the device-ceiling cache lookup, opening the store and writing a run to it,
   the MPI launcher's --version, and the imports a command pays when it runs.

    python benchmarks/startup/run.py [--pairs 11] [--record]

--record appends the tables, with this command line, to benchmarks/startup/RESULTS.md and writes
every figure to benchmarks/startup/results/DATE.json. pario is the repository's .venv/bin/pario
(`make setup` installs it).
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import around  # noqa: E402  (beside this file)

VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
HEAVY = ("numpy", "plotly", "jinja2", "optuna", "rich", "sqlite3", "jsonschema", "pario.analysis", "pario.report",
         "pario.tune", "pario.advise", "pario.store")


def python() -> str:
    return str(VENV_PYTHON) if VENV_PYTHON.exists() else sys.executable


def pario() -> list[str]:
    """The installed command a user runs (its modules compiled at install, as pip leaves them)."""
    exe = ROOT / ".venv" / "bin" / "pario"
    if not exe.exists():
        sys.exit("run.py: no .venv/bin/pario here; run `make setup` first (it installs pario and its engine)")
    return [str(exe)]


def mpirun() -> list[str]:
    found = shutil.which("mpirun")
    if not found:
        return []
    flavour = subprocess.run([found, "--version"], capture_output=True, text=True).stdout.lower()
    flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else []) \
        if "open mpi" in flavour or "open rte" in flavour else []
    return [found, *flags]


class Timing(float):
    """A run's wall seconds, with the CPU seconds (user + system) of it and of every process it
    waited for: on a loaded machine the wall time grows with the load, the CPU time much less."""
    cpu: float


def timed(argv: list[str], cwd: str | None = None) -> Timing:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=cwd)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    out = Timing(time.perf_counter() - start)
    out.cpu = usage.ru_utime + usage.ru_stime
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"run.py: {' '.join(argv)} exited with {proc.returncode}: {err.decode()[-400:]}")
    return out


def pairs(a: list[str], b: list[str], n: int, cwd: str | None = None, before=None) -> tuple[list[Timing], list[Timing]]:
    """n pairs of (a, b), in alternated order; `before` runs (untimed) before each run."""
    ta: list[Timing] = []
    tb: list[Timing] = []
    for k in range(n):
        for which in ("ab" if k % 2 == 0 else "ba"):
            if before:
                before()
            (ta if which == "a" else tb).append(timed(a if which == "a" else b, cwd=cwd))
    return ta, tb


def cpu(runs: list[Timing]) -> float:
    return statistics.median(r.cpu for r in runs)


def ms(x: float) -> str:
    return f"{1e3 * x:.0f}"


def startup(n: int) -> list[dict]:
    sys.path.insert(0, str(ROOT / "src"))
    from pario.cli import COMMANDS

    bare = [python(), "-c", "pass"]
    out = []
    for words in [["--version"], ["--help"], *([c, "--help"] for c in COMMANDS)]:
        base, got = pairs(bare, pario() + words, n)
        out.append({"command": "pario " + " ".join(words), "median_s": statistics.median(got),
                    "min_s": min(got), "cpu_median_s": cpu(got), "python_median_s": statistics.median(base),
                    "python_cpu_median_s": cpu(base), "target_s": 0.10,
                    "met": statistics.median(got) <= 0.10, "met_by_cpu": cpu(got) <= 0.10})
    return out


def loaded_by_import() -> list[str]:
    code = "import json, sys; import pario.cli; print(json.dumps(sorted(sys.modules)))"
    mods = json.loads(subprocess.run([python(), "-c", code], capture_output=True, text=True, check=True).stdout)
    return sorted(m for m in mods if any(m == h or m.startswith(h + ".") for h in HEAVY))


def over(prog: list[str], wrapper: list[str], n: int, target: float, cwd: str, name: str = "PROG") -> dict:
    """`prog` (PROG last, maybe after its launcher) against `pario WRAPPER... PROG`, n alternated
    pairs; what pario adds is the median over the pairs of (wrapped - alone)."""
    plain, got = pairs(prog, pario() + wrapper + prog[-1:], n, cwd=cwd)
    added = [w - p for p, w in zip(plain, got)]
    return {"command": "pario " + " ".join(wrapper) + " " + name, "against": " ".join(prog[:-1] + [name]),
            "plain_median_s": statistics.median(plain), "wrapped_median_s": statistics.median(got),
            "added_median_s": statistics.median(added), "target_added_s": target,
            "added_cpu_median_s": statistics.median(w.cpu - p.cpu for p, w in zip(plain, got)),
            "met": statistics.median(added) <= target,
            "met_by_cpu": statistics.median(w.cpu - p.cpu for p, w in zip(plain, got)) <= target}


def wrappers(n: int, work: str) -> list[dict]:
    prog = shutil.which("true") or "/bin/true"
    rows = [over([prog], ["buffer", "--"], n, 0.05, work),
            over([prog], ["profile", "--"], n, 0.05, work),
            over([prog], ["profile", "-o", "p.json", "--"], n, 0.05, work)]
    # a large program (BIGPROG: PROG followed by 64 MiB, as a scientific code's size; it runs as PROG):
    # what a wrapper reads of it to know which MPI it links (the ELF headers and string table) shows
    big = Path(work) / "bigprog"
    with open(prog, "rb") as src, open(big, "wb") as dst:
        dst.write(src.read())
        for _ in range(64):  # written, not a hole: read as a real program's pages are
            dst.write(b"\x5a" * (1 << 20))
    big.chmod(0o755)
    with open(big, "rb") as fh:  # in the page cache, as a program run before is
        while fh.read(1 << 20):
            pass
    rows += [over([str(big)], ["buffer", "--"], n, 0.05, work, "BIGPROG"),
             over([str(big)], ["profile", "--"], n, 0.05, work, "BIGPROG")]
    # the profiler's own share, for scale: PROG under its library, started by hand (no pario)
    lib = subprocess.run([python(), "-c", "from pario.profile.run import preload_path; print(preload_path())"],
                         capture_output=True, text=True, check=True).stdout.strip()
    os.makedirs(f"{work}/parts", exist_ok=True)
    by_hand = ["env", f"LD_PRELOAD={lib}", f"PARIO_PROFILE_DIR={work}/parts", prog]
    plain, got = pairs([prog], by_hand, n, cwd=work)
    rows.append({"command": "env LD_PRELOAD=libpario-preload.so PARIO_PROFILE_DIR=DIR PROG (no pario: the "
                            "profiler library's own share)", "against": "PROG",
                 "plain_median_s": statistics.median(plain), "wrapped_median_s": statistics.median(got),
                 "added_median_s": statistics.median(w - p for p, w in zip(plain, got)),
                 "added_cpu_median_s": statistics.median(w.cpu - p.cpu for p, w in zip(plain, got)),
                 "target_added_s": None, "met": True, "met_by_cpu": True})
    launcher = mpirun()
    if launcher:
        for cmd in ("buffer", "profile"):
            rows.append(over(launcher + ["-n", "4", prog], [cmd, "-n", "4", "--"], max(3, n // 2), 0.10, work))
    return rows


def smallwrites(n: int, work: str) -> dict:
    exe = Path(work) / "smallwrites"
    subprocess.run(["cc", "-O2", "-o", str(exe), str(ROOT / "benchmarks" / "buffer" / "smallwrites.c")], check=True)
    out = Path(work) / "out.dat"

    def fresh() -> None:  # every run starts from the same state: no file, no dirty pages of another run
        out.unlink(missing_ok=True)
        os.sync()

    prog = [str(exe), "-n", "200000", "-s", "512", "-m", "write", str(out)]
    plain, buffered = pairs(prog, pario() + ["buffer", "--"] + prog, n, cwd=work, before=fresh)
    fresh()
    wins = sum(b < p for p, b in zip(plain, buffered))
    return {"command": "pario buffer -- smallwrites -n 200000 -s 512 -m write OUT",
            "against": "smallwrites -n 200000 -s 512 -m write OUT", "plain_s": plain, "buffered_s": buffered,
            "plain_median_s": statistics.median(plain), "buffered_median_s": statistics.median(buffered),
            "faster_pairs": wins, "pairs": n, "met": wins == n}


def tables(doc: dict) -> str:
    lines = ["| command | median s | min s | CPU median s | `python -c pass` median s (CPU) | at most 0.10 s |",
             "|---|---:|---:|---:|---:|---|"]
    for r in doc["startup"]:
        met = "yes" if r["met"] else "**no**"
        lines.append(f"| `{r['command']}` | {r['median_s']:.3f} | {r['min_s']:.3f} | {r['cpu_median_s']:.3f} | "
                     f"{r['python_median_s']:.3f} ({r['python_cpu_median_s']:.3f}) | {met} |")
    lines += ["", f"`import pario.cli` loads: {', '.join(doc['import_loads']) or 'none of ' + ', '.join(HEAVY)}", "",
              "| wrapped | alone | alone median ms | wrapped median ms | added, median of pairs ms | added CPU ms | "
              "target ms | met |", "|---|---|---:|---:|---:|---:|---:|---|"]
    for r in doc["wrappers"]:
        lines.append(f"| `{r['command']}` | `{r['against']}` | {ms(r['plain_median_s'])} | {ms(r['wrapped_median_s'])}"
                     f" | {ms(r['added_median_s'])} | {ms(r['added_cpu_median_s'])} | "
                     + (f"{ms(r['target_added_s'])} | {'yes' if r['met'] else '**no**'} |" if r["target_added_s"]
                        else "- | - |"))
    s = doc["smallwrites"]
    lines += ["", "| 200,000 x 512 B, end to end | median s | every pair (s) |", "|---|---:|---|",
              f"| `{s['against']}` | {s['plain_median_s']:.3f} | {', '.join(f'{x:.3f}' for x in s['plain_s'])} |",
              f"| `{s['command']}` | {s['buffered_median_s']:.3f} | "
              f"{', '.join(f'{x:.3f}' for x in s['buffered_s'])} |", "",
              f"pario buffer faster in {s['faster_pairs']} of {s['pairs']} pairs "
              f"({'every time' if s['met'] else '**not every time**'}).", "",
              "| what pario does around a run | median ms | [min-max] ms | who pays it |", "|---|---:|---|---|"]
    for r in doc["around"]:
        lines.append(f"| {r['what']} | {r['median_ms']:.1f} | [{r['min_ms']:.1f}-{r['max_ms']:.1f}] | {r['who']} |")
    rows = [r for r in doc["startup"] + doc["wrappers"] if r.get("target_s") or r.get("target_added_s")]
    lines += ["", f"Time targets met by the wall-time medians: {sum(r['met'] for r in rows)} of {len(rows)}; by the "
              f"CPU-time medians (the commands' own work, which a loaded machine stretches less; a quiet machine's "
              f"wall time for these short runs): {sum(r['met_by_cpu'] for r in rows)} of {len(rows)}."]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=11, help="alternated pairs per figure (11)")
    ap.add_argument("--record", action="store_true", help="append to RESULTS.md and write results/DATE.json")
    ap.add_argument("--dir", default=".", help="where the runs write (a temporary directory in it; default .: "
                    "the device-ceiling probe needs O_DIRECT, which tmpfs lacks)")
    args = ap.parse_args()
    pario()  # there, or say how to get it
    load_before = os.getloadavg()[0]
    doc: dict = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="minutes"),
                 "host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
                 "pario": " ".join(pario()), "command": "python benchmarks/startup/run.py " + " ".join(sys.argv[1:]),
                 "load_before": load_before}
    with tempfile.TemporaryDirectory(prefix="pario-startup-", dir=os.path.abspath(args.dir)) as work:
        print("start-up ...", file=sys.stderr)
        doc["startup"] = startup(args.pairs)
        doc["import_loads"] = loaded_by_import()
        print("wrapped programs ...", file=sys.stderr)
        doc["wrappers"] = wrappers(args.pairs, work)
        print("200,000 x 512 B ...", file=sys.stderr)
        doc["smallwrites"] = smallwrites(max(5, args.pairs // 2), work)
        print("around a run ...", file=sys.stderr)
        doc["around"] = around.measure(python(), work, args.pairs)
    doc["load_after"] = os.getloadavg()[0]
    text = tables(doc)
    head = (f"Measured {doc['date']} on {doc['host']}, {doc['cpus']} CPUs, Python {doc['python']}, load average "
            f"{doc['load_before']:.1f} before and {doc['load_after']:.1f} after, with `{doc['command'].strip()}` "
            f"(pario: `{doc['pario']}`):")
    print(head + "\n\n" + text)
    if args.record:
        out = HERE / "results" / (doc["date"].replace(":", "") + ".json")
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps(doc, indent=1) + "\n")
        with open(HERE / "RESULTS.md", "a", encoding="utf-8") as fh:
            fh.write(f"\n## {doc['date']}\n\n{head}\n\n{text}\n\nRaw figures: `results/{out.name}`.\n")
    return 0 if all(r["met"] for r in doc["startup"] + doc["wrappers"]) and doc["smallwrites"]["met"] \
        and not doc["import_loads"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
