"""The file system under a path: its type from the statfs magic (model/filesystems.py), block and
preferred I/O sizes, the mount it belongs to, and the parsers of the site tools' output (`lfs getstripe`, `lfs df`,
`mmlsfs`). Parsers are pure and are tested against outputs recorded in the seeds."""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
from typing import Any

from pario.model.filesystems import PARALLEL, fs_name

__all__ = ["describe", "fs_name", "mount_of", "parse_getstripe", "parse_lfs_df", "parse_mmlsfs", "run_tool",
           "statfs_magic"]

class _StatFs(ctypes.Structure):
    # struct statfs of Linux on 64-bit targets (all members are word sized but f_fsid).
    _fields_ = [("f_type", ctypes.c_long), ("f_bsize", ctypes.c_long), ("f_blocks", ctypes.c_ulong),
                ("f_bfree", ctypes.c_ulong), ("f_bavail", ctypes.c_ulong), ("f_files", ctypes.c_ulong),
                ("f_ffree", ctypes.c_ulong), ("f_fsid", ctypes.c_int * 2), ("f_namelen", ctypes.c_long),
                ("f_frsize", ctypes.c_long), ("f_flags", ctypes.c_long), ("f_spare", ctypes.c_long * 4)]


def statfs_magic(path: str) -> int | None:
    """f_type of statfs(2) through libc; else GNU `stat -f -c %t`; None if neither works."""
    if ctypes.sizeof(ctypes.c_long) == 8:
        from ctypes.util import find_library  # here: it loads shutil and subprocess; the launchers import us

        try:
            libc = ctypes.CDLL(find_library("c") or "libc.so.6", use_errno=True)
            buf = _StatFs()
            if libc.statfs(os.fsencode(path), ctypes.byref(buf)) == 0:
                return buf.f_type & 0xFFFFFFFF
        except OSError:
            pass
    try:
        out = subprocess.run(["stat", "-f", "-c", "%t", path], capture_output=True, text=True, timeout=5)
        return int(out.stdout.strip(), 16) if out.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def mount_of(path: str, mountinfo: str = "/proc/self/mountinfo") -> dict[str, str]:
    """{mount_point, fstype, source, options} of the mount holding path (longest prefix)."""
    real = os.path.realpath(path)
    best: dict[str, str] = {}
    try:
        with open(mountinfo, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                fields, tail = left.split(), right.split()
                if len(fields) < 6 or len(tail) < 2:
                    continue
                point = fields[4].replace("\\040", " ")
                if (real == point or real.startswith(point.rstrip("/") + "/")) and \
                        len(point) >= len(best.get("mount_point", "")):
                    best = {"mount_point": point, "fstype": tail[0], "source": tail[1],
                            "options": fields[5] + ("," + tail[2] if len(tail) > 2 else "")}
    except OSError:
        pass
    return best


def describe(path: str) -> dict[str, Any]:
    """Type, sizes and mount of the file system holding path (the nearest existing parent)."""
    probe = os.path.abspath(path)
    while not os.path.exists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    magic = statfs_magic(probe)
    out: dict[str, Any] = {"path": probe, "magic": None if magic is None else f"0x{magic:x}",
                           "type": fs_name(magic) if magic is not None else None}
    try:
        st = os.statvfs(probe)
        out.update(block_size=st.f_bsize, fragment_size=st.f_frsize, size=st.f_blocks * st.f_frsize,
                   free=st.f_bavail * st.f_frsize)
        out["preferred_io"] = os.stat(probe).st_blksize
    except OSError:
        pass
    mount = mount_of(probe)
    out.update(mount)
    if out.get("type") == "ext4" and mount.get("fstype") in ("ext2", "ext3"):
        out["type"] = mount["fstype"]  # one magic for the three
    if out.get("type") == "fuse" and mount.get("fstype") == "fuse.ceph-fuse":
        out["type"] = "cephfs"  # CephFS through its FUSE client: FUSE's magic, the mount names it
    out["parallel"] = out.get("type") in PARALLEL
    return out


# ---- lfs getstripe / lfs df ---------------------------------------------------------------------

_NUM = r"(-?\d+)"


def _layout_fields(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in ("stripe_count", "stripe_size", "stripe_offset", "pattern", "layout_gen", "pool"):
        m = re.search(rf"(?:^|\s)(?:lmm_)?{key}:\s*(\S+)", text, re.M)
        if m:
            value = m.group(1)
            out[key] = int(value) if re.fullmatch(_NUM, value) else value
    osts = [int(o) for o in re.findall(r"^\s*(\d+)\s+\d+\s+0x[0-9a-f]+\s+\S+\s*$", text, re.M)]
    osts += [int(o) for o in re.findall(r"l_ost_idx:\s*(\d+)", text)]
    if osts:
        out["osts"] = osts
    return out


def parse_getstripe(text: str) -> list[dict[str, Any]]:
    """Entries of `lfs getstripe [-d] PATH...` output: {path, stripe_count, stripe_size,
    stripe_offset, pattern, osts, components (composite/PFL layouts)}."""
    entries: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    body: list[str] = []

    def flush():
        if current is None:
            return
        text_ = "\n".join(body)
        if "lcm_entry_count" in text_ or "lcme_id" in text_:
            comps = []
            for chunk in re.split(r"\n(?=\s*lcme_id:)", text_)[1:]:
                comp = _layout_fields(chunk)
                for key in ("e_start", "e_end"):
                    m = re.search(rf"lcme_extent\.{key}:\s*(\S+)", chunk)
                    if m:
                        comp[key] = -1 if m.group(1) == "EOF" else int(m.group(1))
                comps.append(comp)
            current["components"] = comps
            if comps:
                current.update({k: v for k, v in comps[-1].items() if k.startswith("stripe")})
        else:
            current.update(_layout_fields(text_))
        entries.append(current)

    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        is_field = re.match(r"^(lmm_|lcm_|lcme_|stripe_|obdidx|l_ost|pattern|components:|- |-?\d)", stripped)
        if not is_field and not line.startswith((" ", "\t")):
            flush()
            current, body = {"path": stripped}, []
        else:
            body.append(line)
    flush()
    return entries


def parse_lfs_df(text: str) -> dict[str, Any]:
    """OST and MDT counts (and the summary) of `lfs df [PATH]`."""
    osts = re.findall(r"\[OST:(\d+)\]", text)
    mdts = re.findall(r"\[MDT:(\d+)\]", text)
    out: dict[str, Any] = {"ost_count": len(set(osts)), "mdt_count": len(set(mdts))}
    m = re.search(r"^filesystem_summary:\s+(\d+)\s+(\d+)\s+(\d+)", text, re.M)
    if m:
        out.update(total_kib=int(m.group(1)), used_kib=int(m.group(2)), avail_kib=int(m.group(3)))
    return out


# ---- GPFS ----------------------------------------------------------------------------------

def parse_mmlsfs(text: str) -> dict[str, Any]:
    """Block size, minimum fragment and the other flags of `mmlsfs DEVICE` output."""
    out: dict[str, Any] = {"flags": {}}
    for line in text.splitlines():
        m = re.match(r"^\s*-(\w+)\s+(\S+)\s+(.*\S)\s*$", line)
        if not m:
            continue
        flag, value, desc = m.groups()
        out["flags"][flag] = {"value": value, "description": desc}
        number = int(value) if value.isdigit() else None
        if flag == "B" and number and "block_size" not in out:
            out["block_size"] = number
        elif flag == "f" and number:
            out["min_fragment"] = number
    return out


def run_tool(argv: list[str], timeout: float = 10) -> str | None:
    """stdout of a site tool, or None when it is missing or fails."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        return out.stdout if out.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None
