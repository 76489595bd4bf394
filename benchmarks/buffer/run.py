#!/usr/bin/env python3
"""pario buffer against the KAUST small-writes case (issue 11), not a timed test.

For each case (write/fwrite/fprintf of 512 B records from one process, and 4 ranks under
mpirun each writing its own file with write()), three runs of the same bytes: unbuffered,
buffered (`pario buffer --stats -- smallwrites ...`, the command a user types) and in 1 MiB
write() calls (the limit). Times are open-to-close, measured by smallwrites itself (close
included, so a buffer that defers everything to close does not look free). The three runs of a
case are alternated in rotated order, rep after rep; medians over reps and ratios of medians are
printed as Markdown, and the three files of a rep are compared by their SHA-256. Each run starts
from the same state: the file of the run before it is hashed and unlinked (its dirty pages
dropped, not written back) and `sync` has run, so no run pays for another's page cache.

    python3 benchmarks/buffer/run.py [--fs pagecache|fuse|both] [--count 2000000] [--reps 3]
        [--dir DIR] [--cases write,fwrite,fprintf,mpi4] [--memory warm|cold] [--size SIZE]

--fs fuse mounts DIR/src on DIR/mnt with bindfs (a FUSE file system over a local directory: every
write() is a round trip to a user-space daemon, as on a parallel file system) and unmounts it
after; without bindfs it says how to get it (Debian: apt-get install bindfs fuse3).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
VARIANTS = ("unbuffered", "buffered", "1MiB calls")


def build(out: Path) -> Path:
    exe = out / "smallwrites"
    subprocess.run(["cc", "-O2", "-o", str(exe), str(HERE / "smallwrites.c")], check=True)
    return exe


def pario() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "pario"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "pario"]


def mpirun(n: int) -> list[str]:
    argv = [shutil.which("mpirun") or "mpirun", "-n", str(n), "--oversubscribe"]
    return argv + (["--allow-run-as-root"] if os.geteuid() == 0 else [])


def one(exe: Path, case: str, variant: str, count: int, target: Path, size: str | None = None) -> tuple[float, str]:
    """Seconds open-to-close (the slowest rank for mpi4) and pario's stats table, if any."""
    mode = "big" if variant == "1MiB calls" else {"mpi4": "write"}.get(case, case)
    ranks = 4 if case == "mpi4" else 1
    prog = [str(exe), "-n", str(count // ranks), "-m", mode, str(target) + (".{rank}" if ranks > 1 else "")]
    if variant == "buffered":
        argv = pario() + ["buffer", "--stats"] + (["--size", size] if size else []) + \
            (["-n", str(ranks)] if ranks > 1 else []) + ["--"] + prog
    else:
        argv = (mpirun(ranks) if ranks > 1 else []) + prog
    proc = subprocess.run(argv, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"run.py: {' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    times = [float(line.split()[0].split("=")[1]) for line in proc.stdout.splitlines()
             if line.startswith("open_to_close_s=")]
    if len(times) != ranks:
        sys.exit(f"run.py: expected {ranks} timing lines from {' '.join(argv)}, got: {proc.stdout!r}")
    return max(times), proc.stderr


def digest(p: Path, ranks: int) -> str:
    """The SHA-256 of the file (of each rank's file, in rank order): runs are compared by it, so
    that no run's file is left in the page cache while the next one is timed."""
    out = []
    for q in ([Path(f"{p}.{r}") for r in range(ranks)] if ranks > 1 else [p]):
        h = hashlib.sha256()
        with open(q, "rb") as fh:
            while chunk := fh.read(1 << 22):
                h.update(chunk)
        out.append(h.hexdigest())
    return ",".join(out)


def remove(p: Path, ranks: int) -> None:
    for q in ([Path(f"{p}.{r}") for r in range(ranks)] if ranks > 1 else [p]):
        q.unlink(missing_ok=True)


def settle(scratch_dir: Path, memory: str, nbytes: int) -> None:
    """Put the guest's free memory in one known state before a timed run. On a virtual machine
    whose balloon reports free pages to the host (virtio-balloon free page reporting: the host
    discards them, about 2 s after they were freed), the first touch of such memory costs a
    fault in the host; the page cache of large writes (ext4's large folios) is allocated from
    exactly those blocks. "warm": write and unlink a file a quarter larger than the run's, just
    before it, so the run's page cache comes from memory the host still backs (as on bare
    metal); "cold": wait until everything free has been reported, so every run pays the host."""
    if memory == "cold":
        time.sleep(6)
        return
    scratch = scratch_dir / ".warm"  # on the local file system, not through FUSE
    chunk = b"w" * (4 << 20)
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for _ in range(nbytes * 5 // 4 // len(chunk) + 1):
            os.write(fd, chunk)
    finally:
        os.close(fd)
        scratch.unlink()


def bench(exe: Path, where: Path, cases: list[str], count: int, reps: int, memory: str = "warm",
          size: str | None = None, scratch_dir: Path | None = None) -> tuple[list[dict], str]:
    scratch_dir = scratch_dir or where
    rows, sample = [], ""
    for case in cases:
        ranks = 4 if case == "mpi4" else 1
        times: dict[str, list[float]] = {v: [] for v in VARIANTS}
        identical = True
        for rep in range(reps):
            order = VARIANTS[rep % 3:] + VARIANTS[:rep % 3]
            sums = {}
            for variant in order:
                # Every run starts from the same state: no file of an earlier run (its dirty
                # pages unlinked away, not written back) and nothing else of ours dirty.
                target = where / f"{case}.{variant.split()[0]}"
                remove(target, ranks)
                os.sync()
                settle(scratch_dir, memory, count * 512)
                secs, stats = one(exe, case, variant, count, target, size)
                times[variant].append(secs)
                sums[variant] = digest(target, ranks)
                remove(target, ranks)
                if variant == "buffered" and case == "write" and not sample:
                    sample = stats
                print(f"  {case:8s} rep {rep + 1}/{reps} {variant:11s} {secs:9.3f} s", file=sys.stderr, flush=True)
            identical &= len(set(sums.values())) == 1
        med = {v: statistics.median(t) for v, t in times.items()}
        rows.append({"case": case, "times": times, "median": med, "identical": identical})
    return rows, sample


def table(rows: list[dict], count: int) -> str:
    out = ["| case | unbuffered s | buffered s | 1 MiB calls s | buffered / 1 MiB | unbuffered / buffered "
           "| runs (unbuffered; buffered; 1 MiB) | same bytes |",
           "|---|---:|---:|---:|---:|---:|---|---|"]
    names = {"write": f"write() {count:,} x 512 B", "fwrite": f"fwrite() {count:,} x 512 B",
             "fprintf": f"fprintf() {count:,} lines of 512 B",
             "mpi4": f"4 ranks, write() {count // 4:,} x 512 B each"}
    for r in rows:
        m, t = r["median"], r["times"]
        runs = "; ".join(", ".join(f"{x:.2f}" for x in t[v]) for v in VARIANTS)
        out.append(f"| {names[r['case']]} | {m['unbuffered']:.2f} | {m['buffered']:.2f} | {m['1MiB calls']:.2f} | "
                   f"{m['buffered'] / m['1MiB calls']:.2f}x | {m['unbuffered'] / m['buffered']:.1f}x | {runs} | "
                   f"{'yes' if r['identical'] else 'NO'} |")
    return "\n".join(out)


def mount_fuse(base: Path) -> Path | None:
    if not shutil.which("bindfs") or not os.path.exists("/dev/fuse"):
        print("run.py: bindfs or /dev/fuse missing: the FUSE case needs them (Debian: apt-get install bindfs "
              "fuse3); skipped", file=sys.stderr)
        return None
    (base / "src").mkdir(parents=True, exist_ok=True)
    (base / "mnt").mkdir(exist_ok=True)
    subprocess.run(["bindfs", str(base / "src"), str(base / "mnt")], check=True)
    return base / "mnt"


def unmount(mnt: Path) -> None:
    cmd = ["fusermount3", "-u", str(mnt)] if shutil.which("fusermount3") else ["umount", str(mnt)]
    subprocess.run(cmd, check=False)


def machine() -> str:
    load = os.getloadavg()
    return f"{os.uname().nodename}, {os.cpu_count()} CPUs, Linux {os.uname().release}, load {load[0]:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fs", choices=["pagecache", "fuse", "both"], default="both")
    ap.add_argument("--count", type=int, default=2_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--dir", default=None, help="where the files go (default: a new directory under /tmp)")
    ap.add_argument("--cases", default="write,fwrite,fprintf,mpi4")
    ap.add_argument("--memory", choices=["warm", "cold"], default="warm",
                    help="the state of free memory each run starts from (see settle(); default warm)")
    ap.add_argument("--size", default=None, help="pario buffer --size for the buffered runs (default: its own)")
    args = ap.parse_args()
    cases = args.cases.split(",")
    base = Path(args.dir) if args.dir else Path(f"/tmp/pario-buffer-bench-{os.getpid()}")
    base.mkdir(parents=True, exist_ok=True)
    exe = build(base)
    print(f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {machine()}, with:\n")
    print(f"    python3 benchmarks/buffer/run.py {' '.join(sys.argv[1:])}\n")
    try:
        for fs in (["pagecache", "fuse"] if args.fs == "both" else [args.fs]):
            where = base / "pc" if fs == "pagecache" else mount_fuse(base / "fuse")
            if where is None:
                continue
            where.mkdir(exist_ok=True)
            try:
                rows, sample = bench(exe, where, cases, args.count, args.reps, args.memory, args.size, base)
            finally:
                if fs == "fuse":
                    unmount(where)
            label = "page cache (ext4 under /tmp)" if fs == "pagecache" else "FUSE (bindfs over a local directory)"
            print(f"### {label}: {args.reps} alternated reps, medians, free memory {args.memory}\n")
            print(table(rows, args.count) + "\n")
            if sample:
                print("`pario buffer --stats` of one buffered write() run:\n\n```\n" + sample.rstrip() + "\n```\n")
        print(f"Load after: {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
