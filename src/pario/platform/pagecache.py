"""How much of a file sits in this host's page cache: mincore(2) over a read-only mapping."""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import mmap
import os


def resident_fraction(paths: list[str]) -> float | None:
    """Share of the files' pages in this host's page cache (mincore), or None where it cannot be
    measured. ADIOS2 outputs are directories: their files count."""
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += [os.path.join(d, f) for d, _, names in os.walk(path) for f in names]
        else:
            files.append(path)
    total = cached = 0
    for path in files:
        got = _mincore(path)
        if got is None:
            return None
        cached += got[0]
        total += got[1]
    return cached / total if total else None


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if not name:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    return libc


def _mincore(path: str) -> tuple[int, int] | None:
    """(resident pages, pages) of one file."""
    libc = _libc()
    if libc is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return (0, 0)
        page = mmap.PAGESIZE
        pages = (size + page - 1) // page
        addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            return None
        try:
            vec = ctypes.create_string_buffer(pages)
            if libc.mincore(addr, size, vec) != 0:
                return None
            return (sum(b & 1 for b in vec.raw), pages)
        finally:
            libc.munmap(addr, size)
    finally:
        os.close(fd)
