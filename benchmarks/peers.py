"""Running the peer tools of compare_ior.py on one case: IOR (3.x or 4.x, its text output, which
both versions print alike; IOR 3.2's JSON summary file is written by every rank at once and comes
out garbled, hpc/ior#102), and fio (the device's own limit on the same directory). Also the
eviction the cold-read cases use between IOR's write and read launches: fsync and
POSIX_FADV_DONTNEED on every file of the directory, what `pario bench --drop-caches` does."""
import json
import os
import re
import subprocess

_RESULT_HEAD = re.compile(r"^access\s+bw\(MiB/s\)")
_VERSION = re.compile(r"^IOR-(\S+?):")


def mpirun_prefix(n, io):
    argv = ["mpirun", "-n", str(n), "--oversubscribe"]
    if os.geteuid() == 0:
        argv.append("--allow-run-as-root")
    return argv + ["--mca", "io", io]


def parse_ior_text(text):
    """(version, rows) of IOR's text output; a row per write/read iteration: op, bw MiB/s and the
    open, wr/rd, close and total seconds IOR printed (per-rank maxima, as IOR reports them)."""
    version, rows, cols = None, [], None
    for line in text.splitlines():
        m = _VERSION.match(line)
        if m and not version:
            version = m.group(1)
        if _RESULT_HEAD.match(line):
            cols = line.split()
            continue
        words = line.split()
        if cols and words and words[0] in ("write", "read") and len(words) == len(cols):
            get = dict(zip(cols, words))
            try:
                rows.append({"op": words[0], "bw": float(get["bw(MiB/s)"]), "open": float(get["open(s)"]),
                             "xfer": float(get["wr/rd(s)"]), "close": float(get["close(s)"]),
                             "total": float(get["total(s)"])})
            except ValueError:
                continue
        elif cols and not words:
            cols = None if rows else cols
    return version, rows


def odirect_flag(version):
    """IOR 4 moved O_DIRECT to the POSIX backend's options; IOR 3 has -B."""
    return ["--posix.odirect"] if version and version.split(".")[0] >= "4" else ["-B"]


def ior_version(ior):
    """The version IOR prints on its first line (it has no --version flag)."""
    out = subprocess.run([ior, "-h"], capture_output=True, text=True).stdout
    m = re.search(r"IOR-(\S+?):", out)
    if m:
        return m.group(1)
    out = subprocess.run(mpirun_prefix(1, "ompio") + [ior, "-a", "POSIX", "-t", "4k", "-b", "4k", "-w", "-o",
                                                      "/tmp/ior-version-probe"], capture_output=True, text=True)
    return parse_ior_text(out.stdout)[0] or "?"


def run_ior(ior, flags, ranks, reps, io, path):
    cmd = mpirun_prefix(ranks, io) + [ior, *flags, "-i", str(reps), "-o", path]
    out = subprocess.run(cmd, capture_output=True, text=True)
    version, rows = parse_ior_text(out.stdout)
    if out.returncode or not rows:
        return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:] or ["?"], "command": " ".join(cmd)}
    return {"command": " ".join(cmd), "version": version, "rows": rows}


def evict(directory):
    """fsync + POSIX_FADV_DONTNEED every regular file under directory (no privilege needed)."""
    for base, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(base, name)
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def run_ior_cold(ior, flags, ranks, reps, io, path, directory):
    """IOR has no way to drop caches between its write and read phases: per repetition, one
    launch writes and keeps the file, the files are evicted, a second launch reads them."""
    rows, commands = [], []
    for _ in range(reps):
        w = run_ior(ior, [*flags, "-w", "-k"], ranks, 1, io, path)
        if "error" in w:
            return w
        evict(directory)
        r = run_ior(ior, [*flags, "-r", "-E"], ranks, 1, io, path)
        if "error" in r:
            return r
        rows += w["rows"] + r["rows"]
        commands += [w["command"], r["command"]]
    return {"command": " && ".join(commands[:2]), "version": w.get("version"), "rows": rows}


def run_fio(fio, case, ranks, reps, directory):
    """fio on the same directory, the same bytes per job as a rank, one job per rank: the device's
    own figure (direct=1 for O_DIRECT cases; buffered reads after fio's default invalidate=1,
    i.e. POSIX_FADV_DONTNEED of the file, for the cold-read cases)."""
    size, bs = case["block"], case["transfer"]
    # fallocate=none: pario and IOR write into files they do not preallocate (fio's default,
    # native, would make its writes convert unwritten extents instead of allocating)
    common = ["--ioengine=psync", f"--bs={bs}", f"--size={size}", f"--numjobs={ranks}", "--group_reporting",
              "--output-format=json", f"--direct={1 if case.get('odirect') else 0}", "--fallocate=none"]
    if case["fpp"]:
        common += [f"--directory={directory}", "--filename_format=fio.$jobnum"]
    else:
        common += [f"--filename={os.path.join(directory, 'fio.shared')}", f"--offset_increment={size}"]
    rows, cmd = [], []
    for _ in range(reps):
        for op, rw in (("write", "write"), ("read", "read")):
            cmd = [fio, f"--name={op}", f"--rw={rw}", *common]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode:
                return {"error": (out.stderr or out.stdout).strip().splitlines()[-1:] or ["?"],
                        "command": " ".join(cmd)}
            job = json.loads(out.stdout[out.stdout.index("{"):])["jobs"][0][op]
            rows.append({"op": op, "bw": job["bw_bytes"] / 2**20})
        for name in os.listdir(directory):
            if name.startswith("fio."):
                os.unlink(os.path.join(directory, name))
    version = subprocess.run([fio, "--version"], capture_output=True, text=True).stdout.strip()
    return {"command": " ".join(cmd), "version": version, "rows": rows}
