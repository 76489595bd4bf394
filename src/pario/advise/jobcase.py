"""The job's dominant pattern as one `pario bench` case: what `pario tune --from-log LOG` tunes.
The dominant file is the one the job spent the most I/O time on (its bytes break ties); the case
keeps that file's interface, request size, bytes per rank, ranks, sharing (shared file, file per
process, interleaved pieces) and collective or independent calls, as the log recorded them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pario.advise.job import Job, Rec, is_mpi_helper, is_stream
from pario.model.errors import ParioError
from pario.model.units import human

_PRIORITY = {"mpiio": 0, "posix": 1, "stdio": 2}   # what the program called, not what the library did


@dataclass
class TakenCase:
    flags: dict[str, Any]            # bench flag dests (BenchRequest names) -> values
    ranks: int
    objective: str                   # write | read: the op the job spent more time in
    path: str
    said: list[str] = field(default_factory=list)   # what was taken, in words, for the user

    def argv(self) -> str:
        f = self.flags
        out = [f"-a {f['backend']}"] + (["-c"] if f.get("collective") else []) + [f"-t {f['transfer']}",
                                                                                   f"-b {f['block']}"]
        out += [f"-s {f['segments']}"] if f.get("segments") else []
        out += ["-F"] if f.get("fpp") else []
        out += [f"--strategy {f['strategy']}"] if f.get("strategy") else []
        out += [f"-n {self.ranks}"] + (["-w"] if f.get("write") else []) + (["-r"] if f.get("read") else [])
        out += [f"--lib {kv}" for kv in f.get("lib") or []]   # an I/O library's settings (advise/libcase.py)
        return " ".join(out)


def _files(job: Job) -> dict[str, list[Rec]]:
    """Records by file, each file at the highest interface the program used for it. A node-local
    path (one file in each node's /tmp) is one file per node: keyed by Rec.name, 'PATH (on NODE)'."""
    by: dict[str, list[Rec]] = {}
    for r in job.records:
        if r.bytes and not is_mpi_helper(r.path) and not is_stream(r.path):
            by.setdefault(r.name, []).append(r)
    out = {}
    for path, recs in by.items():
        top = min(_PRIORITY.get(r.module, 9) for r in recs)
        out[path] = [r for r in recs if _PRIORITY.get(r.module, 9) == top]
    return out


def _ranks(recs: list[Rec]) -> int:
    reduced = [r.nprocs for r in recs if r.rank < 0]
    return max(reduced) if reduced else len({r.rank for r in recs})


def _size(recs: list[Rec], op: str) -> int | None:
    exact: dict[int, int] = {}
    for r in recs:
        for s, c in getattr(r, f"{op}_sizes").exact.items():
            exact[s] = exact.get(s, 0) + c
    if exact:
        return max(exact.items(), key=lambda kv: (kv[1], kv[0]))[0]
    calls = sum(getattr(r, f"{op}s") for r in recs)
    moved = sum(getattr(r, f"bytes_{'written' if op == 'write' else 'read'}") for r in recs)
    return moved // calls if calls else None


def dominant_case(job: Job) -> TakenCase:
    files = _files(job)
    if not files:
        raise ParioError(f"{job.source}: the log has no file with data in it; nothing to tune from it")
    def busy(recs: list[Rec]) -> float:
        return sum(r.read_time + r.write_time for r in recs)
    path, recs = max(files.items(), key=lambda kv: (busy(kv[1]), sum(r.bytes for r in kv[1])))
    total = sum(busy(rs) for rs in files.values())
    share = busy(recs) / total if total else 1.0
    data = sum(r.bytes for rs in files.values() for r in rs)
    held = sum(r.bytes for r in recs) / data if data else 1.0
    if len(files) > 4 * max(job.nprocs, _ranks(recs)) and held < 0.25:
        # no file holds most of the data: the job's I/O is many files (a metadata workload), not
        # one data case whose settings could be tuned (bytes decide: the time of a few small
        # writes is too noisy to)
        raise ParioError(f"{job.source}: the job's I/O is spread over {len(files):,} files (the busiest, {path}, "
                         f"holds {100 * held:.2g}% of the bytes); pario tune tunes one data case: "
                         f"pario advise {job.source} says what to change")
    module = recs[0].module
    write_t, read_t = sum(r.write_time for r in recs), sum(r.read_time for r in recs)
    written, read = sum(r.bytes_written for r in recs), sum(r.bytes_read for r in recs)
    objective = "write" if (write_t, written) >= (read_t, read) else "read"
    transfer = _size(recs, objective)
    if not transfer:
        raise ParioError(f"{job.source}: the log does not say how large the {objective}s to {path} were; "
                         "give the case as bench flags instead")
    ranks = _ranks(recs)
    said = [f"the file the job spent most I/O time on: {path} ({module}, "
            f"{human(written)} written, {human(read)} read, {ranks} rank{'s' if ranks != 1 else ''}, "
            f"{100 * share:.0f}% of the job's read and write time)"]
    if transfer % 8:   # pario's data pattern is 8-byte words: the engine refuses other sizes
        said.append(f"the log's {transfer:,}-byte calls are tuned as {max(8, transfer // 8 * 8):,}-byte ones "
                    "(pario's data pattern is 8-byte words)")
        transfer = max(8, transfer // 8 * 8)
    fpp = False
    if ranks == 1 and job.nprocs > 1:
        # a file per process: other ranks' files of about the same size
        size = written + read
        peers = {r.rank for p, rs in files.items() for r in rs if r.rank >= 0 and p != path
                 and 0.5 * size <= sum(x.bytes for x in rs) <= 2 * size}
        if len(peers) + 1 >= job.nprocs:
            fpp, ranks = True, job.nprocs
            said.append(f"each of the {ranks} ranks has a file like it: file per process")
    strategy = None
    node_files = {n: rs for n, rs in files.items() if rs[0].node and rs[0].path == recs[0].path}
    if recs[0].node and len(node_files) > 1:
        # the same path on other nodes is other files: one file per node, each its node's ranks'
        per_node = [_ranks(rs) for rs in node_files.values()]
        strategy, ranks = "per-node", sum(per_node)
        lo, hi = min(per_node), max(per_node)
        writers = f"{lo}-{hi} ranks" if lo != hi else f"{lo} rank{'s' if lo != 1 else ''}"
        said.append(f"each of {len(node_files)} nodes has its own {recs[0].path} (a node-local file system), "
                    f"written by its {writers}: a file per node")
    moved = (written if objective == "write" else read) // (1 if fpp else max(1, _ranks(recs)))
    block = max(transfer, moved // transfer * transfer)
    flags: dict[str, Any] = {"backend": "mpiio" if module == "mpiio" else "posix", "transfer": str(transfer),
                             "block": str(block), "write": True if written else None,
                             "read": True if read else None, "fpp": True if fpp else None, "strategy": strategy}
    if module == "stdio":
        said.append("stdio calls are tuned as the POSIX calls they become")
    if module == "mpiio":
        coll = sum((getattr(r, f"coll_{objective}s") or 0) for r in recs)
        indep = sum((getattr(r, f"indep_{objective}s") or 0) for r in recs)
        flags["collective"] = True if coll > indep else None
        said.append(f"{coll:,} collective and {indep:,} independent {objective}s: "
                    f"{'collective' if coll > indep else 'independent'} calls")
    strides: dict[int, int] = {}
    # MPI-IO records keep no strides; for independent calls the POSIX calls under them are the
    # program's own (collective ones are the aggregators' pattern, not the program's)
    under = [r for r in job.records if r.path == path and r.module == "posix"] \
        if module == "mpiio" and not flags.get("collective") else []
    for r in recs + under:
        for k, v in r.strides.items():
            strides[k] = strides.get(k, 0) + v
    if ranks > 1 and not fpp and strides and max(strides, key=lambda k: strides[k]) == ranks * transfer \
            and block > transfer:
        flags["segments"], flags["block"] = block // transfer, str(transfer)
        said.append(f"each rank's {human(transfer)} pieces interleaved with the others': "
                    f"{block // transfer:,} segments")
    said.append(f"{objective}s of {human(transfer)}, {human(block)} per rank: the most common size and "
                "the bytes of each rank in the log (give -b, -s to tune on fewer bytes per trial)")
    return TakenCase(flags=flags, ranks=ranks, objective=objective, path=path, said=said)
