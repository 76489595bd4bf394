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

from pario.model.errors import ParioError

PSEUDO = ("/proc", "/sys")   # kernel file systems: they take no new files


# Paths here are strings, not pathlib's: pathlib (with the urllib.parse and ipaddress it imports) cost
# a wrapper's start 3-5 ms of the 50 it may add (benchmarks/startup), and `pario profile` writes its
# log through this module.
def path_text(path: str | os.PathLike) -> str:
    """The path as str(pathlib.Path(path)) writes it, without pathlib: repeated '/' and '.' parts
    dropped, no trailing '/', '..' kept (it may follow a symbolic link), '.' for an empty path."""
    text = os.fspath(path)
    root = "//" if text.startswith("//") and not text.startswith("///") else "/" if text.startswith("/") else ""
    return root + "/".join(p for p in text.split("/") if p and p != ".") or "."


def suffix(name: str) -> str:
    """A file name's suffix as pathlib's PurePath.suffix: '.json' of 'a.json', none of '.json'."""
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def _above(path: str):
    """The directories above an absolute, normalised path, nearest first (pathlib's parents)."""
    while path != os.path.dirname(path):
        path = os.path.dirname(path)
        yield path


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


def check_output(path: str | os.PathLike, flag: str = "-o", what: str = "the file") -> str:
    """Refuse, before any work, a path write_output could not write (a command that runs a program
    first would lose what it measured): a directory, a parent that is missing or not a directory, a
    kernel file system, a directory pario may not write. Returns the path resolved."""
    given = path_text(path)
    try:
        mode: int | None = os.stat(given).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:   # it would fail once the work is done
            raise ParioError(f"{flag} {given}: its symbolic links form a loop; choose another place") from None
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise ParioError(f"{flag} {given} is a directory; give a file name in it for {what}")
    if mode is not None:   # a file, or a device or pipe (/dev/null, /dev/stdout: written in place)
        if not os.access(given, os.W_OK):
            raise ParioError(f"{flag} {given}: cannot write it (permission denied); choose another place")
        return os.path.realpath(given)
    out = os.path.realpath(given)
    parent = os.path.dirname(out)
    if any(out == p or out.startswith(p + "/") for p in PSEUDO):
        raise ParioError(f"{flag} {given} is under /{out.split('/')[1]}, which takes no new files; choose another "
                         "place")
    if not os.path.exists(parent):
        nearest = next((p for p in _above(parent) if os.path.exists(p)), "/")
        if not os.path.isdir(nearest):
            raise ParioError(f"{flag} {given}: {nearest} is a file, not a directory; choose another place")
        raise ParioError(f"{flag} {given}: directory {parent} does not exist; create it or choose another place")
    if not os.path.isdir(parent):
        raise ParioError(f"{flag} {given}: {parent} is a file, not a directory; choose another place")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ParioError(f"{flag} {given}: cannot write in {parent} (permission denied); choose another place")
    return out


def check_place(path: str | os.PathLike, flag: str) -> None:
    """A directory a job script makes (mkdir -p) can be made: not on a kernel file system, not below a
    regular file."""
    out = path_text(os.path.abspath(path))
    if any(out == p or out.startswith(p + "/") for p in PSEUDO):
        raise ParioError(f"{flag} {path} is under /{out.split('/')[1]}, which takes no new directories; choose "
                         "another place")
    for above in [out, *_above(out)]:
        if os.path.exists(above):
            if not os.path.isdir(above):
                raise ParioError(f"{flag} {path}: {above} is a file, not a directory; choose another place")
            break


def write_output(path: str | os.PathLike, data: bytes, flag: str = "-o") -> int:
    """Write data to the user's path; returns its size. One-line ParioError when it cannot."""
    # through a symbolic link: the rename replaces the file it points to, never the link itself
    given, out = path_text(path), os.path.realpath(path)
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
    parent = os.path.dirname(os.path.realpath(out))
    if not os.path.isdir(parent):
        raise ParioError(f"{flag} {given}: directory {parent} does not exist; create it or choose another place")
    try:
        fd, tmp = new_file(str(parent), f".{os.path.basename(out)}.", ".tmp")
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
