"""Shared by the test_advise_* files that build a job by hand and run it through the rules (no
program, no measurement): a model with a 4 kB break-even, a Ctx on ext4, the rules' findings by
rule, and a POSIX record of n sequential writes."""
from __future__ import annotations

import sys

from advise_support import ROOT

sys.path.insert(0, str(ROOT / "src"))

from pario.advise.costs import Line, Model  # noqa: E402
from pario.advise.facts import FsFacts, StackFacts  # noqa: E402
from pario.advise.job import Bucket, Job, Rec, Sizes  # noqa: E402
from pario.advise.rules import detect  # noqa: E402
from pario.advise.rules.base import Ctx  # noqa: E402

MIB = 1 << 20
MODEL = Model(write=Line(c0=2e-6, bw=2e9), read=Line(c0=1e-6, bw=4e9))   # break-even 4 kB


def ctx_of(recs: list[Rec], nprocs: int = 1, unit: int = 4096, **job) -> Ctx:
    j = Job(source="x", format="pario", nprocs=nprocs, run_time=10.0, records=recs, argv=["./app"], **job)
    stack = StackFacts(files={r.path: FsFacts(fs="ext4", unit=unit, unit_source="block") for r in recs})
    return Ctx(j, stack, MODEL, 4)


def found(ctx: Ctx) -> dict[str, list]:
    out: dict[str, list] = {}
    for c in detect(ctx):
        out.setdefault(c.rule, []).append(c)
    return out


def writes(path: str, n: int, size: int, rank: int = 0, **kw) -> Rec:
    return Rec(module="posix", path=path, rank=rank, opens=1, writes=n, bytes_written=n * size,
               write_time=n * 5e-6, max_byte_written=n * size - 1, consec_writes=n - 1, seq_writes=n - 1,
               write_sizes=Sizes(exact={size: n}, buckets=[Bucket(size, size, n)]), **kw)
