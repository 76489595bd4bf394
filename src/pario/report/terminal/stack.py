"""Terminal rendering of a `pario stack` document (pario.platform.stack.collect) with rich: one table of
facts, then the hints in effect for a new file, with what each fact means for the user."""
from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from pario.model.units import short


def rows(doc: dict[str, Any]) -> list[tuple[str, str]]:
    fs, host, mpi = doc.get("fs") or {}, doc.get("host") or {}, doc.get("mpi") or {}
    out = [("path", doc.get("path", "?")),
           ("file system", f"{fs.get('type')} (statfs magic {fs.get('magic')}), mounted at {fs.get('mount_point')} "
                           f"from {fs.get('source')}" + ("; a parallel file system" if fs.get("parallel") else
                                                         "; not a parallel file system")),
           ("block / preferred I/O", f"{short(fs.get('block_size'))} / {short(fs.get('preferred_io'))}; "
                                     f"{short(fs.get('free'))} free of {short(fs.get('size'))}")]
    lustre = doc.get("lustre")
    if lustre:
        if lustre.get("available"):
            lay = lustre.get("dir_layout") or {}
            out.append(("Lustre", f"new files here: stripe count {lay.get('stripe_count', '?')}, stripe size "
                                  f"{short(lay.get('stripe_size'))}, first OST {lay.get('stripe_offset', '?')}; "
                                  f"{lustre.get('ost_count', '?')} OSTs"))
        else:
            out.append(("Lustre", lustre.get("reason", "?")))
    out += cephfs_rows(doc.get("cephfs"))
    gpfs = doc.get("gpfs")
    if gpfs:
        out.append(("GPFS", f"block size {short(gpfs.get('block_size'))}, minimum fragment "
                            f"{short(gpfs.get('min_fragment'))}" if gpfs.get("available") else gpfs.get("reason")))
    out.append(("host", f"{host.get('hostname')}: {host.get('cpus_usable')} usable of {host.get('cpus')} CPUs, "
                        f"{short(host.get('mem_total'))} memory; {host.get('os')}, kernel {host.get('kernel')}"))
    out += slurm_rows(doc.get("slurm"))
    if not mpi.get("available", True):
        out.append(("MPI", mpi.get("reason", "not found")))
    else:
        out.append(("MPI", f"{mpi.get('library') or mpi.get('version')} (launcher {mpi.get('launcher')})"))
        impl = mpi.get("mpiio")
        if mpi.get("flavour") == "openmpi":
            text = (f"{'OMPIO' if impl == 'ompio' else 'ROMIO'} (io component {mpi.get('io_component')}, "
                    f"{mpi.get('io_selected_by')}; available: {', '.join(mpi.get('io_components') or [])})")
            if impl == "ompio":
                text += (f"; fs component {mpi.get('ompio_fs')}. OMPIO ignores ROMIO hints: use --io romio321 "
                         "or its MCA parameters (pario settings render --dialect ompi)")
        else:
            text = "Cray MPICH (ROMIO-derived)" if impl == "cray" else "ROMIO"
        if mpi.get("romio_driver"):
            text += f"; ROMIO driver here: {mpi['romio_driver']}"
        out.append(("MPI-IO", text))
    libs = doc.get("libraries") or {}
    out.append(("libraries", ", ".join(f"{k} {v or 'not found'}" for k, v in libs.items())))
    backends = doc.get("backends")
    if backends:
        built = [b["name"] for b in backends if b.get("built")]
        missing = [b["name"] for b in backends if not b.get("built")]
        out.append(("engine backends", ", ".join(built) + (f" (not built: {', '.join(missing)})" if missing else "")))
    else:
        out.append(("engine backends", "unknown (pario-engine not found or --no-probe)"))
    return out


def cephfs_rows(ceph: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The client, the servers and pools, and the layout of a new file (CephFS)."""
    if not ceph:
        return []
    cl, lay = ceph.get("client") or {}, ceph.get("new_file_layout") or {}
    out = [("CephFS client", f"{cl.get('client')} (config {cl.get('conf')}, {cl.get('name')})")]
    if not ceph.get("available"):
        return out + [("CephFS", str(ceph.get("reason", "?")))]
    systems = ceph.get("filesystems") or []
    mds = sum(len(f.get("mds_active") or []) for f in systems)
    caps = sorted({s.get("cap_write_bps") for s in ceph.get("server_list") or [] if s.get("cap_write_bps")})
    cap = f"; capped at {'/'.join(short(c) for c in caps)}/s each (blkio)" if caps else ""
    names = ", ".join(str(f.get("name")) for f in systems)
    out.append(("CephFS servers", f"{ceph.get('servers')} object servers (OSDs) up of {len(ceph.get('osds') or [])}"
                                  f"{cap}; {mds} active metadata server{'s' if mds != 1 else ''}; file system"
                                  f"{'s' if len(systems) != 1 else ''} {names}"))
    pools = [f"{p['name']} ({p.get('pg_num')} PGs, {p.get('size')} cop{'y' if p.get('size') == 1 else 'ies'})"
             for p in ceph.get("pools") or []]
    out.append(("CephFS pools", ", ".join(pools)))
    out.append(("CephFS layout", f"new files here: stripe_count {lay.get('stripe_count', '?')}, stripe_unit "
                                 f"{short(lay.get('stripe_unit'))}, object_size {short(lay.get('object_size'))}, pool "
                                 f"{lay.get('pool', 'the first data pool')} ({ceph.get('layout_source')}). Unlike "
                                 "Lustre, a file larger than one object spreads over the servers at any stripe count"))
    return out


def slurm_rows(slurm: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The scheduler, the allocation (partition, nodes, tasks) and srun's MPI plugin."""
    if not slurm:
        return [("scheduler", "no Slurm allocation in the environment")]
    where = f"cluster {slurm['cluster']}, " if slurm.get("cluster") else ""
    nodes = slurm.get("nodes")
    text = (f"Slurm job {slurm.get('job')}" + (f" (array task {slurm['array']})" if slurm.get("array") else "")
            + f": {where}partition {slurm.get('partition', '?')}, {nodes or '?'} node{'s' if nodes != 1 else ''}"
            + (f" ({slurm['nodelist']})" if slurm.get("nodelist") else ""))
    tasks = slurm.get("tasks")
    per_node = slurm.get("tasks_per_node") or []
    if tasks or per_node:
        spread = (f"{per_node[0]} per node" if len(set(per_node)) == 1 else "per node " + ",".join(map(str, per_node)))
        text += f", {tasks or sum(per_node)} tasks" + (f" ({spread})" if per_node else "")
    if slurm.get("step") is not None:
        text += f"; inside step {slurm['step']}"
    out = [("scheduler", text)]
    if slurm.get("mpi_plugin_error"):
        out.append(("srun --mpi", slurm["mpi_plugin_error"]))
    elif slurm.get("mpi_plugins"):
        out.append(("srun --mpi", f"{slurm.get('mpi_plugin')} ({slurm.get('mpi_plugin_source')}; this srun offers "
                                  f"{', '.join(slurm['mpi_plugins'])})"))
    return out


def print_stack(console: Console, doc: dict[str, Any]) -> None:
    table = Table(title=escape(f"pario stack: {doc.get('path')}"), title_justify="left", box=box.SIMPLE_HEAD,
                  show_header=False, pad_edge=False)
    table.add_column("", style="bold", no_wrap=True)
    table.add_column("", overflow="fold")
    for key, value in rows(doc):
        table.add_row(Text(key), Text(str(value)))
    console.print(table)
    for p in doc.get("probes") or []:
        label = f"--io {p['io']}" if p.get("io") else "this MPI's default MPI-IO"
        if not p.get("ok"):
            label = f"--io {p['io']}" if p.get("io") else "the MPI-IO probe"
        if not p.get("ok"):
            console.print(f"hints in effect ({escape(label)}): not measured: {escape(str(p.get('reason')))}")
            continue
        hints = p.get("hints") or {}
        t = Table(title=escape(f"hints in effect for a new file here ({label}; as reported by {p.get('means')})"),
                  title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        t.add_column("hint")
        t.add_column("value", overflow="fold")
        for key, value in hints.items():
            t.add_row(Text(key), Text(str(value)))
        console.print(t if hints else f"hints in effect ({escape(label)}): none reported "
                                      f"(asked {escape(str(p.get('means')))})")
