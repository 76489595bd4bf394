"""Writing a file the user named (-o): whole or not at all, and never over something that is not
a regular file.

A regular file (or a new one) is written through a temporary file beside it and a rename, so a
reader never sees half of it and the old one stays if writing fails. Anything else (/dev/null,
/dev/stdout, a FIFO, a terminal) is opened and written in place: a rename over it would replace
the device or pipe with a file, which as root destroys /dev/null for every program. A symbolic
link is followed: what it points to is written, the link stays."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from pario.model.errors import ParioError


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
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=str(parent))
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
