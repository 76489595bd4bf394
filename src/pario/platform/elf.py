"""The dynamic string table of an ELF executable: the names of the shared libraries it needs
(DT_NEEDED) and of the versions it requires, read through its program headers, so that asking
which MPI a program links reads a few kilobytes of it, not the whole file (a 42 MB program cost
`pario profile` 80 ms of CPU that way; benchmarks/startup)."""
from __future__ import annotations

import struct

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_STRTAB, DT_STRSZ = 0, 5, 10
MOST = 16 << 20  # bytes of a program-header table, dynamic section or string table read: far above any real one


class NotELF(ValueError):
    """Not an ELF file, or one whose headers do not hold together."""


def dynamic_strings(f) -> bytes | None:
    """The dynamic string table of the ELF file open in f (binary), or None when it has none (a
    static executable). NotELF when f is no ELF file or its headers are damaged."""
    head = f.read(64)
    if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
        raise NotELF("not an ELF file")
    wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
    try:
        if wide:
            phoff, = struct.unpack_from(order + "Q", head, 32)
            phentsize, phnum = struct.unpack_from(order + "HH", head, 54)
            phdr, dyn = order + "IIQQQQQQ", order + "qQ"
        else:
            phoff, = struct.unpack_from(order + "I", head, 28)
            phentsize, phnum = struct.unpack_from(order + "HH", head, 42)
            phdr, dyn = order + "IIIIIIII", order + "iI"
        if phentsize < struct.calcsize(phdr):
            raise NotELF("program headers too small")
        table = _read(f, phoff, phentsize * phnum)
        loads, dynamic = [], None
        for i in range(phnum):
            fields = struct.unpack_from(phdr, table, i * phentsize)
            if wide:
                p_type, _, offset, vaddr, _, filesz, _, _ = fields
            else:
                p_type, offset, vaddr, _, filesz, _, _, _ = fields
            if p_type == PT_LOAD:
                loads.append((vaddr, offset, filesz))
            elif p_type == PT_DYNAMIC:
                dynamic = (offset, filesz)
        if dynamic is None:
            return None
        entries = _read(f, *dynamic)
        size = struct.calcsize(dyn)
        strtab = strsz = None
        for i in range(len(entries) // size):
            tag, value = struct.unpack_from(dyn, entries, i * size)
            if tag == DT_NULL:
                break
            if tag == DT_STRTAB:
                strtab = value
            elif tag == DT_STRSZ:
                strsz = value
        if strtab is None or strsz is None:
            return None
        # DT_STRTAB is an address in memory: the file offset is where the loaded segment holding it starts
        for vaddr, offset, filesz in loads:
            if vaddr <= strtab < vaddr + filesz:
                return _read(f, offset + strtab - vaddr, strsz)
        raise NotELF("the string table is in no loaded segment")
    except struct.error:
        raise NotELF("headers cut short") from None


def _read(f, offset: int, size: int) -> bytes:
    if size > MOST or offset < 0:
        raise NotELF("a header names an impossible size")
    f.seek(offset)
    data = f.read(size)
    if len(data) != size:
        raise NotELF("the file ends inside a header")
    return data
