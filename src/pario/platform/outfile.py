"""Writing a file the user named (-o): whole or not at all, and never over something that is not
a regular file.

A regular file (or a new one) is written through a temporary file beside it and a rename, so a
reader never sees half of it and the old one stays if writing fails. Anything else (/dev/null,
/dev/stdout, a FIFO, a terminal) is opened and written in place: a rename over it would replace
the device or pipe with a file, which as root destroys /dev/null for every program. A symbolic
link is followed: what it points to is written, the link stays."""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from pario.model.errors import ParioError

PSEUDO = ("/proc", "/sys")   # kernel file systems: they take no new files


def new_file(parent: str, prefix: str, suffix: str = "") -> tuple[int, str]:
    """A file of a name no one has in parent, created and opened for writing, mode 0600 (as
    tempfile.mkstemp makes it): (descriptor, path). OSError when parent takes no file."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    for path in _names(parent, prefix, suffix):
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused name found", parent)


def new_dir(parent: str, prefix: str) -> str:
    """A directory of a name no one has in parent, mode 0700 (as tempfile.mkdtemp makes it)."""
    for path in _names(parent, prefix, ""):
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused name found", parent)


def _names(parent: str, prefix: str, suffix: str):
    # tempfile's way (a random name, made exclusively, another if it exists) without tempfile: its
    # random and weakref modules cost a wrapper's start more than writing its log (benchmarks/startup)
    for _ in range(100):
        yield os.path.join(parent, f"{prefix}{os.urandom(6).hex()}{suffix}")


def check_output(path: str | os.PathLike, flag: str = "-o", what: str = "the file") -> Path:
    """Refuse, before any work, a path write_output could not write (a command that runs a program
    first would lose what it measured): a directory, a parent that is missing or not a directory, a
    kernel file system, a directory pario may not write. Returns the path resolved."""
    given = Path(path)
    if given.is_dir():
        raise ParioError(f"{flag} {given} is a directory; give a file name in it for {what}")
    if given.exists():   # a file, or a device or pipe (/dev/null, /dev/stdout: written in place)
        if not os.access(given, os.W_OK):
            raise ParioError(f"{flag} {given}: cannot write it (permission denied); choose another place")
        return Path(os.path.realpath(given))
    out = Path(os.path.realpath(given))
    parent = out.parent
    if any(str(out) == p or str(out).startswith(p + "/") for p in PSEUDO):
        raise ParioError(f"{flag} {given} is under /{out.parts[1]}, which takes no new files; choose another place")
    if not parent.exists():
        nearest = next((p for p in parent.parents if p.exists()), Path("/"))
        if not nearest.is_dir():
            raise ParioError(f"{flag} {given}: {nearest} is a file, not a directory; choose another place")
        raise ParioError(f"{flag} {given}: directory {parent} does not exist; create it or choose another place")
    if not parent.is_dir():
        raise ParioError(f"{flag} {given}: {parent} is a file, not a directory; choose another place")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ParioError(f"{flag} {given}: cannot write in {parent} (permission denied); choose another place")
    return out


def check_place(path: str | os.PathLike, flag: str) -> None:
    """A directory a job script makes (mkdir -p) can be made: not on a kernel file system, not below a
    regular file."""
    out = Path(os.path.abspath(path))
    if any(str(out) == p or str(out).startswith(p + "/") for p in PSEUDO):
        raise ParioError(f"{flag} {path} is under /{out.parts[1]}, which takes no new directories; choose another "
                         "place")
    for above in [out, *out.parents]:
        if above.exists():
            if not above.is_dir():
                raise ParioError(f"{flag} {path}: {above} is a file, not a directory; choose another place")
            break


def write_output(path: str | os.PathLike, data: bytes, flag: str = "-o") -> int:
    """Write data to the user's path; returns its size. One-line ParioError when it cannot."""
    # through a symbolic link: the rename replaces the file it points to, never the link itself
    given, out = Path(path), Path(os.path.realpath(path))
    try:
        mode = os.stat(out).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise ParioError(f"cannot write {given}: {exc.strerror}; choose another place with {flag}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise ParioError(f"{flag} {given} is a directory; give a file name in it")
    if mode is not None and not stat.S_ISREG(mode):
        try:
            with open(out, "wb") as fh:  # a device or pipe: written in place, never replaced
                fh.write(data)
        except OSError as exc:
            raise ParioError(f"cannot write {given}: {exc.strerror}; choose another place with {flag}") from None
        return len(data)
    parent = out.resolve().parent
    if not parent.is_dir():
        raise ParioError(f"{flag} {given}: directory {parent} does not exist; create it or choose another place")
    try:
        fd, tmp = new_file(str(parent), f".{out.name}.", ".tmp")
    except OSError as exc:
        raise ParioError(f"cannot write {given}: {exc.strerror}; choose another place with {flag}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask if mode is None else stat.S_IMODE(mode))  # as open() would have kept it
        os.replace(tmp, out)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise ParioError(f"cannot write {given}: {exc.strerror}; choose another place with {flag}") from None
    return len(data)
