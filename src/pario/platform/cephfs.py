"""CephFS under a path: the client that mounted it (ceph-fuse or the kernel), the cluster behind it
(object servers, pools, metadata servers), the layout of a file or a directory (the virtual
extended attributes ceph.file.layout and ceph.dir.layout, set and read back like `lfs setstripe`
and `lfs getstripe`), and the servers' own counters of the bytes they wrote and read.

Unlike Lustre: a file is cut into objects of `object_size` bytes, each placed on an object server
(OSD) by CRUSH from its name; `stripe_count` objects are written round-robin in `stripe_unit`
pieces before the next set of objects starts. Stripe count 1 is therefore one server only for a
file no larger than one object; a larger file spreads over the servers whatever its stripe count."""
from __future__ import annotations

import errno
import json
import os
import socket
import struct
import subprocess
from typing import Any

from pario.platform import fsinfo
from pario.settings.ceph_layout import format_layout, parse_layout

FILE_XATTR, DIR_XATTR = "ceph.file.layout", "ceph.dir.layout"
# Ceph's own layout of a new file where no directory sets one (file_layout_t::get_default).
DEFAULT = {"stripe_unit": 4 << 20, "stripe_count": 1, "object_size": 4 << 20}
STRIPE_UNIT_ALIGN = 64 << 10   # the MDS refuses a stripe unit that is not a multiple of this (EINVAL)
COUNTERS = "perf dump: osd.op_w_in_bytes, osd.op_r_out_bytes, osd.op_w, osd.op_r"
CEPH_TIMEOUT = 20.0


def objects_of(size: int, count: int, unit: int, obj: int) -> int:
    """Objects a file of `size` bytes has data in, at a layout (stripe_count, stripe_unit, object_size)."""
    count, unit, obj = max(1, count), max(1, unit), max(1, obj)
    per_set = count * obj
    full, rem = divmod(size, per_set)
    return full * count + min(count, -(-rem // unit))


def is_cephfs(fs: dict[str, Any] | None) -> bool:
    return (fs or {}).get("type") == "cephfs"


# ---- layouts --------------------------------------------------------------------------------

def read_layout(path: str) -> dict[str, Any] | None:
    """The layout of a file, or the layout a directory gives new files (None: it sets none, or this
    is not CephFS)."""
    attr = DIR_XATTR if os.path.isdir(path) else FILE_XATTR
    try:
        return parse_layout(os.getxattr(path, attr).decode("utf-8", "replace"))
    except (OSError, ValueError, IndexError):
        return None


def new_file_layout(directory: str, mount_point: str | None) -> tuple[dict[str, Any], str]:
    """(the layout a new file in `directory` gets, where it comes from): the nearest directory up to
    the mount point that sets one, else Ceph's default."""
    probe = os.path.abspath(directory)
    top = os.path.abspath(mount_point or "/")
    while True:
        got = read_layout(probe) if os.path.isdir(probe) else None
        if got:
            return got, f"{DIR_XATTR} of {probe}"
        if probe == top or os.path.dirname(probe) == probe:
            return dict(DEFAULT), "Ceph's default (no directory up to the mount point sets a layout)"
        probe = os.path.dirname(probe)


def set_layout(path: str, layout: dict[str, Any]) -> str | None:
    """Set the layout of an empty file, or of a directory (for the files made in it later); None, or
    what the file system said."""
    attr = DIR_XATTR if os.path.isdir(path) else FILE_XATTR
    value = format_layout(layout)
    try:
        os.setxattr(path, attr, value.encode())
    except OSError as exc:
        reasons: dict[int, str] = {
            errno.EINVAL: "the file system refused these values (a stripe unit is a multiple of 64 KiB and "
                          "divides the object size; the pool must be a data pool of this file system)",
            errno.ENOTEMPTY: "the file already has data: a layout is set on an empty file",
            errno.ENOTSUP: "not CephFS (no ceph.*.layout attributes here)"}
        why = reasons.get(exc.errno or 0, exc.strerror or "failed")
        return f"setfattr -n {attr} -v \"{value}\" {path}: {why}"
    return None


# ---- the client and the cluster -------------------------------------------------------------

def _cmdline(pid: str) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return [a.decode("utf-8", "replace") for a in fh.read().split(b"\0") if a]
    except OSError:
        return []


def client(mount: dict[str, Any]) -> dict[str, Any]:
    """The client of a CephFS mount: {client, pid, conf, name} (ceph-fuse: from its command line;
    the kernel client: /etc/ceph/ceph.conf and client.admin, or CEPH_CONF)."""
    point = mount.get("mount_point") or ""
    out: dict[str, Any] = {"client": "ceph-fuse" if mount.get("fstype") == "fuse.ceph-fuse" else "kernel",
                           "conf": os.environ.get("CEPH_CONF") or "/etc/ceph/ceph.conf", "name": "client.admin"}
    if out["client"] != "ceph-fuse":
        return out
    for pid in filter(str.isdigit, os.listdir("/proc")):
        argv = _cmdline(pid)
        if not argv or os.path.basename(argv[0]) != "ceph-fuse" or point not in [os.path.abspath(a) for a in argv]:
            continue
        out["pid"] = int(pid)
        for i, arg in enumerate(argv[:-1]):
            if arg in ("-c", "--conf"):
                out["conf"] = argv[i + 1]
            elif arg in ("-n", "--name"):
                out["name"] = argv[i + 1]
            elif arg in ("-i", "--id"):
                out["name"] = "client." + argv[i + 1]
        break
    return out


def ceph(conf: str, name: str, args: list[str], timeout: float = CEPH_TIMEOUT) -> Any:
    """A `ceph` command's JSON answer, or None when the cluster does not answer."""
    text = fsinfo.run_tool(["ceph", "-c", conf, "-n", name, "--connect-timeout", str(int(timeout)), *args,
                            "-f", "json"], timeout=timeout + 5)
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


def cluster(conf: str, name: str) -> dict[str, Any]:
    """Object servers, pools and file systems (two `ceph` calls, about a second)."""
    osd = ceph(conf, name, ["osd", "dump"])
    if not isinstance(osd, dict):
        return {"available": False, "reason": f"the cluster did not answer `ceph -c {conf} osd dump` "
                                              "(ceph-common missing, or no access to the monitors)"}
    osds = [{"id": o.get("osd"), "up": bool(o.get("up")), "in": bool(o.get("in"))} for o in osd.get("osds") or []]
    pools = [{"name": p.get("pool_name"), "id": p.get("pool"), "size": p.get("size"), "pg_num": p.get("pg_num")}
             for p in osd.get("pools") or []]
    out: dict[str, Any] = {"available": True, "fsid": osd.get("fsid"), "osds": osds,
                           "servers": sum(1 for o in osds if o["up"] and o["in"]), "pools": pools}
    fsd = ceph(conf, name, ["fs", "dump"])
    if isinstance(fsd, dict):
        names: dict[Any, Any] = {p["id"]: p["name"] for p in pools}
        systems = []
        for fs in fsd.get("filesystems") or []:
            mdsmap = fs.get("mdsmap") or {}
            active = [i.get("name") for i in (mdsmap.get("info") or {}).values() if i.get("state") == "up:active"]
            systems.append({"name": mdsmap.get("fs_name"), "metadata_pool": names.get(mdsmap.get("metadata_pool")),
                            "data_pools": [names.get(p, p) for p in mdsmap.get("data_pools") or []],
                            "mds_active": active, "max_file_size": mdsmap.get("max_file_size")})
        out["filesystems"] = systems
    return out


def facts(fs: dict[str, Any], directory: str) -> dict[str, Any]:
    """What `pario stack` says of a CephFS: client, cluster, the layout a new file gets here."""
    cl = client(fs)
    layout, source = new_file_layout(directory, fs.get("mount_point"))
    out: dict[str, Any] = {"client": cl, "new_file_layout": layout, "layout_source": source}
    out.update(cluster(cl["conf"], cl["name"]))
    if out.get("available"):
        out["server_list"] = servers(cl["conf"], [o["id"] for o in out["osds"] if o["up"]])
    return out


# ---- the servers: where their counters are, their bandwidth caps ----------------------------

def _conf_value(conf: str, name: str, key: str) -> str | None:
    text = fsinfo.run_tool(["ceph-conf", "-c", conf, "--name", name, "--show-config-value", key], timeout=10)
    return text.strip() if text and text.strip() else None


def servers(conf: str, ids: list[int]) -> list[dict[str, Any]]:
    """Each object server: its admin socket when it runs on this machine (counters read there in
    milliseconds), its pid, and the bandwidth cap of its blkio cgroup if it has one."""
    out = []
    for i in ids:
        rec: dict[str, Any] = {"id": i, "name": f"osd.{i}"}
        sock = _conf_value(conf, rec["name"], "admin_socket")
        if sock and os.path.exists(sock):
            rec["socket"] = sock
        pidfile = _conf_value(conf, rec["name"], "pid_file")
        try:
            with open(pidfile or "", encoding="ascii") as fh:
                pid = int(fh.read().strip())
            os.kill(pid, 0)
            rec["pid"] = pid
            rec.update(blkio_cap(pid))
        except (OSError, ValueError):
            pass
        out.append(rec)
    return out


def blkio_cap(pid: int, root: str = "/sys/fs/cgroup/blkio") -> dict[str, Any]:
    """{cap_write_bps, cap_read_bps, cgroup} of a process in a throttled cgroup v1 blkio group."""
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8") as fh:
            line = next((ln for ln in fh if ":blkio:" in ln), "")
    except OSError:
        return {}
    group = line.strip().split(":", 2)[-1] if line else ""
    if not group or group == "/":
        return {}
    out: dict[str, Any] = {}
    for key, name in (("cap_write_bps", "blkio.throttle.write_bps_device"),
                      ("cap_read_bps", "blkio.throttle.read_bps_device")):
        try:
            with open(os.path.join(root, group.lstrip("/"), name), encoding="ascii") as fh:
                rates = [int(ln.split()[1]) for ln in fh if len(ln.split()) == 2]
        except (OSError, ValueError):
            continue
        if rates:
            out[key] = min(rates)
    if out:
        out["cgroup"] = group
    return out


def _asok(path: str, command: dict[str, Any], timeout: float = 5.0) -> Any:
    """A command on a daemon's admin socket (the protocol of ceph_daemon.py: the JSON command and a
    NUL; the answer is a 4-byte big-endian length and the JSON)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(json.dumps(command).encode() + b"\0")
        head = b""
        while len(head) < 4:
            chunk = s.recv(4 - len(head))
            if not chunk:
                raise OSError("admin socket closed")
            head += chunk
        size = struct.unpack(">I", head)[0]
        body = bytearray()
        while len(body) < size:
            chunk = s.recv(min(1 << 20, size - len(body)))
            if not chunk:
                raise OSError("admin socket closed")
            body += chunk
    return json.loads(body.decode("utf-8", "replace"))


def counters(server_list: list[dict[str, Any]], conf: str | None = None,
             name: str = "client.admin") -> dict[str, dict[str, int]] | None:
    """{osd.N: {write, read, write_ops, read_ops}}: the bytes and operations each object server has
    written and read since it started, its own counters; None when one of them cannot be read."""
    out: dict[str, dict[str, int]] = {}
    for srv in server_list:
        try:
            if srv.get("socket"):
                dump = _asok(srv["socket"], {"prefix": "perf dump"})
            elif conf:
                dump = ceph(conf, name, ["tell", srv["name"], "perf", "dump"])
            else:
                return None
            osd = dump["osd"]
            out[srv["name"]] = {"write": int(osd["op_w_in_bytes"]), "read": int(osd["op_r_out_bytes"]),
                                "write_ops": int(osd["op_w"]) + int(osd.get("op_rw", 0)), "read_ops": int(osd["op_r"])}
        except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError):
            return None
    return out


def delta(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    return {k: {op: after[k][op] - before[k].get(op, 0) for op in after[k]} for k in after if k in before}
