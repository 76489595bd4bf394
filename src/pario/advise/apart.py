"""Files that are not the program's data: listed apart, never findings.

- the MPI library's helper files (job.is_mpi_helper: Open MPI's *.sm and lock files, ROMIO's
  .shfp, pario's one '<MPI runtime files>' record);
- the interpreter's and the system's own files: bytecode (.pyc), Python sources read, shared
  libraries (.so), site-packages, the installation of an interpreter the job ran (python, perl,
  julia...: its lib/, share/ and include/), conda and spack trees, /usr, /etc, /lib, and the
  pseudo file systems /proc, /sys and /dev. A Python program's imports are hundreds of small
  reads of such files: advised on, they became "small reads", "many files" and a calibration of
  a 141,936-byte .pyc;
- the directories the MPI runtime or libc looks up in nearly every job (/, /tmp: metadata only,
  named as `pario profile show` names them);
- descriptors the program used without ever opening them: its standard output and error (or a
  descriptor its launcher handed it). Buffering stderr would hold back the messages a crash
  should leave, and a terminal is not a file a fix can change.

Each group is named in the advice with how many files it holds and an example, so nothing is
hidden. Both readers call `separate` once the job is read."""
from __future__ import annotations

import os
import re

from pario.advise.job import Job, Rec, is_mpi_helper
from pario.analysis.profile.views import LOOKED_UP_DIRS

MPI = "MPI implementation helper files"
RUNTIME = "interpreter, library and system files"
INHERITED = "standard streams and descriptors the program never opened"
LOOKED_UP = "directories looked up, metadata only"   # as pario profile show says of them
GROUPS = (MPI, RUNTIME, INHERITED, LOOKED_UP)

_INTERPRETER = re.compile(r"^(python|pypy|julia|R|Rscript|perl|ruby|node|java|lua|octave|bash|sh|dash|zsh|ksh|"
                          r"csh|tcsh)[\d.]*$")
# anywhere in the path: an interpreter's or a package manager's own files
_RUNTIME_PARTS = re.compile(r"(/__pycache__/|/site-packages(/|$)|/dist-packages(/|$)|/lib/python\d[\d.]*(/|$)|"
                            r"/spack/opt/|/\.spack-env/|/(ana|mini)?conda\d*/pkgs/|/\.julia/|/perl5/)")
_RUNTIME_NAMES = re.compile(r"(\.pyc|\.pyo|\.pth|/pyvenv\.cfg|\.so(\.\d+)*)$")
# read-only: code loaded by an interpreter (a program that writes a .py file made data)
_CODE_READ = re.compile(r"\.(py|pl|pm|jl|rb|lua|R|sh|bash|zsh|ksh|csh)$")
_SYSTEM = ("/proc/", "/sys/", "/dev/", "/usr/", "/etc/", "/lib/", "/lib64/", "/bin/", "/sbin/", "/boot/")
_STREAMS = ("<STDIN>", "<STDOUT>", "<STDERR>")


def prefixes(exes: list[str]) -> list[str]:
    """The installation prefixes of the interpreters among the job's executables
    (/opt/conda/envs/x/bin/python3.11 -> /opt/conda/envs/x)."""
    out = []
    for exe in exes:
        d, base = os.path.split(exe)
        if _INTERPRETER.match(base) and os.path.basename(d) == "bin" and os.path.dirname(d) not in ("", "/", "/usr"):
            out.append(os.path.dirname(d))
    return sorted(set(out))


def scripts(commands: list[tuple[str, list[str], str]]) -> list[str]:
    """The files an interpreter was told to run: the arguments of the job's interpreter processes
    (exe, argv, cwd), as absolute paths (a shell reads its script in pieces, seeking back after
    each command: that is the shell's way of reading code, not the program's I/O)."""
    out = []
    for exe, argv, cwd in commands:
        if not _INTERPRETER.match(os.path.basename(exe)):
            continue
        for a in argv[1:]:
            if a and not a.startswith("-"):
                out.append(os.path.normpath(a if os.path.isabs(a) else os.path.join(cwd or "/", a)))
    return out


def runtime_file(path: str, written: bool, roots: list[str], code: list[str] | None = None) -> bool:
    if path.startswith(_SYSTEM):
        return True
    if not written and code and path in code:
        return True
    if _RUNTIME_PARTS.search(path) or _RUNTIME_NAMES.search(path):
        return True
    if not written and _CODE_READ.search(path):
        return True
    for root in roots:
        if path == root or any(path == f"{root}/{d}" or path.startswith(f"{root}/{d}/")
                               for d in ("lib", "lib64", "share", "include", "etc", "bin")):
            return True
    return False


def group_of(path: str, recs: list[Rec], roots: list[str], code: list[str] | None = None) -> str | None:
    """The group a file is set apart in, or None: it is the program's."""
    if is_mpi_helper(path):
        return MPI
    if path in _STREAMS:
        return INHERITED
    if path in LOOKED_UP_DIRS and not any(r.bytes_read or r.bytes_written for r in recs):
        return LOOKED_UP
    written = any(r.bytes_written for r in recs)
    if runtime_file(path, written, roots, code):
        return RUNTIME
    # data moved through a descriptor that no process of the job opened, through no interface
    # (pario names an inherited descriptor by the path it points to; stat-only files stay)
    if not any(r.opens for r in recs) and any(r.reads or r.writes for r in recs) \
            and not any(r.module == "mpiio" for r in recs):
        return INHERITED
    return None


def separate(job: Job, exes: list[str], code: list[str] | None = None) -> None:
    """Move the records of files that are not the program's data out of job.records, into
    job.apart (group -> paths); MPI helper files also go to job.ignored, as before."""
    roots = prefixes(exes)
    by_path: dict[str, list[Rec]] = {}
    for r in job.records:
        by_path.setdefault(r.path, []).append(r)
    keep = []
    for r in job.records:
        group = group_of(r.path, by_path[r.path], roots, code)
        if group is None:
            keep.append(r)
            continue
        paths = job.apart.setdefault(group, [])
        if r.path not in paths:
            paths.append(r.path)
        if group == MPI and r.path not in job.ignored:
            job.ignored.append(r.path)
    job.records = keep
    for paths in job.apart.values():
        paths.sort()
