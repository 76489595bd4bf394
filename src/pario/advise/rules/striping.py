"""A large shared file on one server of a CephFS: written by many ranks, it lies in one object (stripe
count 1 and a file no larger than the object size), so every byte goes through one object server
while the others wait. The fix is a layout set on the directory before the job creates the file; its
gain is measured here by writing the job's pattern at both layouts (a Ratio cost: the plan runs on
the job's own directory, where the layout applies).

Unlike Lustre's stripe count 1 (one OST whatever the size), a CephFS file larger than its object
size spreads over servers at stripe count 1 too; only the file that fits one object is on one
server. The Lustre rule is rules.layout.lustre_one_stripe."""
from __future__ import annotations

from pario.advise.costs import Ratio
from pario.advise.job import Rec
from pario.advise.rules.base import Candidate, Ctx, Plan
from pario.model.findings import Evidence, Fix
from pario.model.units import exact, human
from pario.platform import cephfs
from pario.settings import Settings, render


def spread_object_size(size: int, servers: int, unit: int, obj: int) -> int:
    """An object size that cuts the file into at least 4 objects per server (CRUSH places objects
    pseudo-randomly: with few, one server often gets two; with many, each gets its share), never
    below the stripe unit nor above the current object size; a power-of-two multiple of the unit."""
    want = max(unit, size // max(1, 4 * servers))
    out = unit
    while out * 2 <= want and out * 2 <= obj:
        out *= 2
    return out


def _typical_write(r: Rec) -> int:
    sizes = {k: v for k, v in r.write_sizes.exact.items() if k >= 4096}
    best = max(sizes, key=lambda k: sizes[k]) if sizes else 1 << 20
    return max(8, best - best % 8)


def cephfs_one_server(ctx: Ctx) -> list[Candidate]:
    out = []
    for r in ctx.recs("posix"):
        f = ctx.facts(r)
        if f.fs != "cephfs" or not r.shared or not r.writes or not f.servers or f.servers < 2:
            continue
        size = max(r.max_byte_written or -1, r.max_byte_read or -1) + 1
        count, unit = f.stripe_count or 1, f.stripe_size or cephfs.DEFAULT["stripe_unit"]
        obj = f.object_size or cephfs.DEFAULT["object_size"]
        if size < 2 * unit or cephfs.objects_of(size, count, unit, obj) > 1:
            continue
        writers = r.nprocs
        new = min(writers, f.servers, -(-size // unit))
        if new < 2:
            continue
        new_obj = spread_object_size(size, f.servers, unit, obj)
        d = r.path.rsplit("/", 1)[0] or "."
        layout = {"stripe_count": str(new), "object_size": str(new_obj)}
        value = f"stripe_count={new} object_size={new_obj}"
        settings = Settings(layout=[layout])
        text = (f"{r.name} ({human(size)}) is written by {writers} ranks and lies in one object (stripe_count "
                f"{count}, object_size {human(obj)}; {f.source}): all its bytes go through one of the "
                f"{f.servers} object servers.")
        pieces = cephfs.objects_of(size, new, unit, new_obj)
        fix = Fix(kind="layout", command=f'setfattr -n ceph.dir.layout -v "{value}" {d}',
                  text=f"give the directory a layout of {new} stripes of {human(new_obj)} objects before the job "
                       f"creates the file (a layout is fixed at creation): its {human(size)} then fill {pieces} "
                       f"objects, which CRUSH places over the {f.servers} servers (MPI-IO's striping_factor hint does "
                       "nothing on CephFS)",
                  settings={"ceph.stripe_count": str(new), "ceph.object_size": str(new_obj)},
                  rendered={"ceph": render(settings, "ceph", path=d).strip(),
                            "lfs (Lustre, no object size)": render(settings, "lfs", path=d).strip()})
        block = max(8, size // max(1, writers))
        xfer = min(_typical_write(r), block)
        base = {"backend": "posix", "strategy": "shared", "transfer": xfer, "block": block - block % xfer,
                "ops": ["write"], "fsync": True, "reps": 3, "stripe_size": unit, "object_size": obj}
        plan = Plan(ranks=writers, before=dict(base, stripe_count=count),
                    after=dict(base, stripe_count=new, object_size=new_obj), log_s=r.elapsed(r.write_time),
                    what=f"the job's layout vs {new} stripes of {human(new_obj)} objects")
        out.append(Candidate(rule="cephfs-one-server", title=f"shared file on one object server ({human(size)})",
                             evidence=Evidence(text=text, counters={"POSIX_NPROCS": writers,
                                                                    "POSIX_BYTES_WRITTEN": r.bytes_written or 0},
                                               files=[r.name]),
                             fix=fix, cost=Ratio(log_s=r.elapsed(r.write_time),
                                                 what=f"the file at {new} stripes of {exact(unit, 'GMK')} in "
                                                      f"{exact(new_obj, 'GMK')} objects"),
                             confidence="high", plan=plan))
    return out


RULES = [cephfs_one_server]
