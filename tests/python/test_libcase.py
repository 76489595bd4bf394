"""tune --from-log of an HDF5 program (advise/libcase.py): the case is taken from the calls of the
objective's op. HDF5's dataset record counts the collective requests of reads and writes together
and its call sizes of both: h5_known (tests/preload) read /block collectively after writing it, and
the read case said '16 collective and -12 independent read calls' and 'reads of 4 KiB' (the size of
/rows' writes)."""
from __future__ import annotations

from pario.advise.job import Job
from pario.advise.jobcase import TakenCase
from pario.advise.libcase import library_case
from pario.advise.libjob import LibRec

PATH = "/scratch/out.h5"


def _dataset(name: str, reads: int, writes: int, coll: int, sizes: dict[int, int], read_bytes: int = 0) -> LibRec:
    return LibRec(library="hdf5", kind="object", module="h5d", file=PATH, name=name, rank=-1, nprocs=4,
                  c={"READS": reads, "WRITES": writes, "COLL_REQUESTED": coll, "INDEP_REQUESTED": reads + writes - coll,
                     "BYTES_READ": read_bytes, "BYTES_WRITTEN": sum(s * n for s, n in sizes.items())},
                  sizes=sizes)


def _job() -> Job:
    file = LibRec(library="hdf5", kind="file", module="h5f", file=PATH, name=None, rank=-1, nprocs=4,
                  c={"READS": 4, "WRITES": 45})
    objs = [_dataset("/block", 4, 4, 8, {32768: 8}, read_bytes=4 * 32768),
            _dataset("/rows", 0, 32, 0, {4096: 32}), _dataset("/conv", 0, 4, 4, {16384: 4}),
            _dataset("/chunks", 0, 4, 4, {32768: 4}), _dataset("/all", 0, 1, 0, {4096: 1})]
    return Job(source="h5.log", format="pario", nprocs=4, run_time=1.0, libs=[file, *objs])


def _taken(op: str) -> TakenCase:
    return TakenCase(flags={"backend": "mpiio", "transfer": "4096", "block": "4096", op: True}, ranks=4,
                     objective=op, path=PATH, said=["the file the job spent most I/O time on"])


def test_the_read_case_counts_the_reads_only():
    case = library_case(_job(), _taken("read"))
    said = " ".join(case.said)
    assert "4 collective and 0 independent read calls: collective" in said, said
    assert "4 read calls on 1 dataset)" in said
    assert (case.flags["transfer"], case.flags["block"], case.flags["collective"]) == ("32768", "32768", True)


def test_the_write_case_leaves_out_the_reads_collective_requests():
    case = library_case(_job(), _taken("write"))
    said = " ".join(case.said)
    assert "12 collective and 33 independent write calls: independent" in said, said
    assert "45 write calls on 5 datasets)" in said
    assert case.flags["transfer"] == "4096" and case.flags["collective"] is None
