"""Each false alarm and wrong fix of issue 25, as a small job built by hand and run through the
rules (no program, no measurement): the re-read rule on IOR's write-then-read repetitions, files
that are not the program's data, a file's tail counted as misaligned, the library's own alignment
knobs, pario buffer offered where it cannot join writes, and --verify's verdict."""
from __future__ import annotations

import sys

from advise_jobs import MIB, MODEL, ctx_of, found, writes
from advise_support import ROOT

sys.path.insert(0, str(ROOT / "src"))

from pario.advise import apart  # noqa: E402
from pario.advise.advisor import Ranked  # noqa: E402
from pario.advise.facts import StackFacts  # noqa: E402
from pario.advise.job import Bucket, Job, Rec, Sizes  # noqa: E402
from pario.advise.rules.base import Ctx  # noqa: E402
from pario.advise.verify import not_faster  # noqa: E402
from pario.model.findings import Evidence, Finding, Fix, Verification  # noqa: E402

# ---- the re-read rule ----

def test_ior_repetitions_are_not_rereads():
    """IOR -i 3 -w -r: each rank writes its file, reads it back, three times (5 read/write switches);
    no byte is read twice without a write between."""
    recs = []
    for rank in range(4):
        r = writes(f"/d/ior.{rank}", 3 * 16, MIB, rank=rank, rw_switches=5)
        r.max_byte_written = 16 * MIB - 1
        r.reads, r.bytes_read, r.max_byte_read, r.read_time = 3 * 16, 3 * 16 * MIB, 16 * MIB - 1, 0.3
        recs.append(r)
    assert "redundant-reads" not in found(ctx_of(recs, nprocs=4))


def test_a_real_reread_is_found():
    r = writes("/d/in", 4, MIB, rw_switches=1)   # written once, then read 5 times over
    r.reads, r.bytes_read, r.max_byte_read, r.read_time = 20, 20 * MIB, 4 * MIB - 1, 0.5
    got = found(ctx_of([r]))["redundant-reads"]
    assert got[0].title == "the same bytes read 5.0 times"


def test_shared_file_already_read_collectively_is_judged_at_mpiio():
    """IOR's shared file, MPI_File_read_all, -i 3: the MPI-IO record reads the file three times with
    writes between; nothing to advise, and MPI_File_read_all is never prescribed to it."""
    posix = Rec(module="posix", path="/d/shared", rank=-1, nprocs=4, opens=4, reads=12, writes=12,
                bytes_read=3 * 64 * MIB, bytes_written=3 * 64 * MIB, max_byte_read=64 * MIB - 1,
                max_byte_written=64 * MIB - 1, rw_switches=20, read_time=1.0)
    mpiio = Rec(module="mpiio", path="/d/shared", rank=-1, nprocs=4, opens=4, reads=12, writes=12,
                coll_reads=12, coll_writes=12, bytes_read=3 * 64 * MIB, bytes_written=3 * 64 * MIB,
                rw_switches=20, read_time=1.0)
    got = found(ctx_of([posix, mpiio], nprocs=4))
    assert "redundant-reads" not in got
    for cands in got.values():
        assert all("MPI_File_read_all" not in c.fix.text for c in cands)


# ---- files that are not the program's data ----

def test_interpreter_and_streams_are_set_apart():
    py = "/home/u/.pyenv/versions/3.11.7"
    recs = [Rec(module="posix", path=f"{py}/lib/python3.11/__pycache__/enum.cpython-311.pyc", rank=0, opens=1,
                reads=2, bytes_read=85000),
            Rec(module="posix", path=f"{py}/lib/python3.11/json/decoder.py", rank=0, opens=1, reads=1,
                bytes_read=9000),
            Rec(module="posix", path="/home/u/venv/lib/python3.11/site-packages/numpy/core/_multiarray.so",
                rank=0, opens=1, reads=3, bytes_read=4096),
            Rec(module="posix", path="/proc/self/maps", rank=0, opens=1, reads=1, bytes_read=100),
            Rec(module="posix", path="/scratch/job/slurm-1.err", rank=0, opens=0, writes=1, bytes_written=18,
                write_time=0.5),
            Rec(module="posix", path="/home/u/run.py", rank=0, opens=1, reads=1, bytes_read=300),
            writes("/scratch/job/out.dat", 100, MIB)]
    job = Job(source="x", format="pario", nprocs=1, run_time=1.0, records=recs)
    apart.separate(job, [f"{py}/bin/python3.11"])
    assert [r.path for r in job.records] == ["/scratch/job/out.dat"]
    assert job.apart[apart.INHERITED] == ["/scratch/job/slurm-1.err"]
    assert len(job.apart[apart.RUNTIME]) == 5


def test_directories_looked_up_are_named_as_profile_show_names_them():
    from pario.report.advice_text import left_out
    recs = [Rec(module="posix", path="/", rank=0, stats=3), Rec(module="posix", path="/tmp", rank=0, opens=1),
            writes("/scratch/job/out.dat", 100, MIB)]
    job = Job(source="x", format="pario", nprocs=1, run_time=1.0, records=recs)
    apart.separate(job, ["/usr/bin/prog"])
    assert job.apart == {apart.LOOKED_UP: ["/", "/tmp"]} and [r.path for r in job.records] == ["/scratch/job/out.dat"]
    lines = left_out({"apart_files": job.apart})
    assert "left out: 2 directories looked up, metadata only, e.g. /" in lines, lines
    one = left_out({"apart_files": {apart.LOOKED_UP: ["/tmp"]}})
    assert "left out: 1 directory looked up, metadata only, e.g. /tmp" in one


def test_stderr_is_never_a_buffer_fix():
    """One 18 B write to stderr redirected to a file (never opened by the program) took 88% of the
    run: it is set apart, no finding of any kind."""
    err = Rec(module="posix", path="/scratch/job/err.txt", rank=0, opens=0, writes=3, bytes_written=54,
              write_time=8.8, write_sizes=Sizes(exact={18: 3}, buckets=[Bucket(0, 99, 3)]))
    job = Job(source="x", format="pario", nprocs=1, run_time=10.0, records=[err], argv=["./app"])
    apart.separate(job, ["/usr/bin/app"])
    assert not job.records and not found(Ctx(job, StackFacts(), MODEL, 4))


# ---- misaligned: the tail of a file, the library's knobs ----

def test_a_file_written_in_one_piece_is_not_misaligned():
    r = writes("/d/out.json", 1, 4897, not_aligned=1, alignment=4096)
    assert "misaligned" not in found(ctx_of([r]))


def test_alignment_fix_names_the_files_library(tmp_path):
    pnc = tmp_path / "out.nc"
    pnc.write_bytes(b"CDF\x05" + bytes(60))
    h5 = tmp_path / "out.h5"
    h5.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(60))
    for path, want, never in ((pnc, "nc_var_align_size", "H5Pset_alignment"),
                              (h5, "H5Pset_alignment", "nc_var_align_size")):
        r = writes(str(path), 64, MIB + 512, not_aligned=64, alignment=4096)
        fix = found(ctx_of([r]))["misaligned"][0].fix
        assert want in fix.text and never not in fix.text and never not in " ".join(fix.rendered.values())
    plain = writes(str(tmp_path / "out.dat"), 64, MIB + 512, not_aligned=64, alignment=4096)
    fix = found(ctx_of([plain]))["misaligned"][0].fix
    assert "H5Pset_alignment" not in fix.text and not fix.rendered


# ---- pario buffer only where it can join writes ----

def test_files_written_once_each_are_not_small_writes():
    recs = [writes(f"/d/f{i}", 1, 512) for i in range(2000)]
    got = found(ctx_of(recs))
    assert "posix-small-writes" not in got and "many-files" in got


def test_seek_to_where_the_last_write_ended_is_joined():
    """IOR's POSIX backend: an lseek to each transfer's offset, where the last one ended."""
    r = writes("/d/ior", 4096, 512, seeks=4096)
    c = found(ctx_of([r]))["posix-small-writes"][0]
    assert c.fix.kind == "buffer" and "pario buffer takes such a seek as none" in c.evidence.text


def test_writes_that_jump_around_get_no_buffer():
    r = writes("/d/scatter", 4096, 512, seeks=4096)
    r.consec_writes = r.seq_writes = 10
    c = found(ctx_of([r]))["posix-small-writes"][0]
    assert c.fix.kind == "code" and "cannot join" in c.fix.text


def test_stdio_lines_joined_by_the_stream_are_not_small():
    lines = Rec(module="stdio", path="/d/log.txt", rank=0, opens=1, writes=20000, bytes_written=20000 * 30,
                fsyncs=0, write_time=0.01)
    assert "stdio-small-writes" not in found(ctx_of([lines]))
    lines.fsyncs = 20000   # fflush after each line: each is a write(2), and no buffer can join them
    c = found(ctx_of([lines]))["stdio-small-writes"][0]
    assert c.fix.kind == "code" and "fflush" in c.fix.text


def test_a_log_made_under_pario_buffer_is_judged_on_what_the_file_system_saw():
    r = writes("/d/out", 20000, 512)
    joined = {"/d/out": {"sys_writes": 10, "sys_bytes": 20000 * 512, "write_time": 0.01, "calls": 20000,
                         "flush_reasons": {"full": 10}, "size": MIB}}
    assert "posix-small-writes" not in found(ctx_of([r], buffered=joined))
    seeks = {"/d/out": {"sys_writes": 20000, "sys_bytes": 20000 * 512, "write_time": 0.4, "calls": 20000,
                        "flush_reasons": {"seek": 19999, "close": 1}, "size": MIB}}
    c = found(ctx_of([r], buffered=seeks))["posix-small-writes"][0]
    assert c.fix.kind == "code" and "pario buffer" not in (c.fix.command or "") and "seek" in c.fix.text


# ---- --verify's verdict ----

def test_a_fix_verify_measured_no_faster_is_checked_not_advised():
    f = Finding(rule="posix-small-writes", title="small writes", evidence=Evidence(text="t"),
                fix=Fix(kind="buffer", text="x", command="pario buffer --size 1m -- ./app"), seconds_at_stake=1.0)
    f.verification = Verification(before_s=1.0, after_s=1.11, note="0.90x [0.80x-1.02x], within the noise",
                                  method="program", verdict="within noise")
    ranked = Ranked(findings=[f])
    not_faster(ranked)
    assert not ranked.findings and "0.90x" in ranked.no_gain[0]["why"]


# ---- every second counted once ----

def test_findings_on_the_same_time_are_counted_once():
    from pario.advise.overlap import settle
    r = writes("/d/out", 1000, 512)          # 1000 writes: 5 ms of write time
    job = Job(source="x", format="pario", nprocs=1, run_time=0.006, records=[r])

    def f(rule, sec):
        return Finding(rule=rule, title=rule, evidence=Evidence(text="t", files=["/d/out"]),
                       fix=Fix(kind="code", text="x"), seconds_at_stake=sec, estimate="e")
    a, b, c = f("posix-small-writes", 0.0045), f("misaligned", 0.004), f("stat-calls", 0.009)
    total = settle(Ranked(findings=[a, b, c]), job)
    # the same 5 ms of writes: the second finding counts only what the first leaves
    assert a.seconds_at_stake == 0.0045 and "'misaligned', counted here" in a.estimate
    assert abs(b.seconds_at_stake - 0.0005) < 1e-9 and "4.0 ms by itself" in b.estimate
    assert c.seconds_at_stake == 0.006 and "capped at the run" in c.estimate   # never more than the run
    assert total is not None and total["seconds"] <= 0.006


# ---- the system the job ran on ----

def test_a_log_from_another_host_is_not_made_here():
    from pario.advise import systems
    job = Job(source="x", format="pario", nprocs=4, run_time=1.0, hosts=["nid00012", "nid00013"])
    here, why = systems.made_here(job)
    assert not here and "nid00012" in why
    dj = Job(source="x", format="darshan", nprocs=4, run_time=1.0, mounts={"/lus/scratch": "lustre"},
             records=[writes("/lus/scratch/u/out", 10, MIB)])
    here, why = systems.made_here(dj)
    assert not here and "lustre at /lus/scratch is not mounted here" in why


def test_nothing_is_measured_for_another_system(tmp_path):
    """A Measurer that may not measure (the log is from elsewhere) gives no model and says why for
    every pattern; nothing runs (no MPI, no engine are asked for)."""
    from pario.advise.costs import Query
    from pario.advise.measure import Budget, Measurer

    def never():
        raise AssertionError("nothing may be launched for another system's log")
    m = Measurer(None, False, "the log is from another system", store=None, mpi=never, where=never,
                 observer=None, budget=Budget(10.0, 1 << 30), force=False)
    model, why = m.model()
    assert model is None and why == "the log is from another system"
    q = Query.of("posix-small-writes@x", 1, {"before": {"backend": "posix", "transfer": 512, "block": 4096}})
    got = m.measure([q])
    assert not got and got.why[q.key] == "the log is from another system"


def test_kept_measurements_serve_and_the_budget_is_deterministic(tmp_path):
    """A pattern kept in the system's calibration is used as it is; one past the budget is uncosted
    with the command that measures it, on every run (the kept ones count against the budget too)."""
    from pario.advise import systems
    from pario.advise.costs import Measured, Query
    from pario.advise.measure import Budget, Measurer

    cal = systems.new({"name": "vm", "hosts": ["vm"]}, tmp_path / "vm.json", {"dir": str(tmp_path)})
    small = {"backend": "posix", "strategy": "fpp", "transfer": MIB, "block": 64 * MIB, "ops": ["write"], "reps": 1}
    big = dict(small, block=2048 * MIB)
    q1, q2 = Query.of("a@cal-1", 1, {"before": small}, pin="a@1"), Query.of("b@cal-2", 1, {"before": big}, pin="b@2")
    kept = Measured(name="before", op="write", ranks=1, bytes=64 * MIB, calls=64, time_s=0.1, xfer_s=0.1,
                    spread=0.0, reps=1)
    cal.measured["a@1"] = {"before": kept}
    assert cal.save() is None and systems.load(tmp_path / "vm.json").measured["a@1"]["before"].time_s == 0.1

    def never():
        raise AssertionError("nothing is launched: one is kept, the other is over the budget")
    for _ in range(2):
        m = Measurer(systems.load(tmp_path / "vm.json"), True, "", store=None, mpi=lambda: object(), where=never,
                     observer=None, budget=Budget(10.0, 1 << 30), force=False)
        got = m.measure([q1, q2])
        assert got[q1.key]["before"].time_s == 0.1 and q2.key not in got
        assert "pario advise --calibrate LOG measures it" in got.why[q2.key]


def test_a_case_that_cannot_run_leaves_only_its_finding_uncosted():
    from pario.advise import calibrate
    from pario.advise.costs import Query
    bad = Query.of("x@1", 1, {"before": {"backend": "posix", "strategy": "fpp", "transfer": 69632,
                                         "block": 141936, "ops": ["read"], "reps": 1}})
    got = calibrate.run([bad], None, None, None, mpi=None)   # type: ignore[arg-type]
    assert not got and "cannot run here" in got.why[bad.key]


# ---- imbalance only beyond the noise, with its cause ----

def _shared(slow_b, fast_b, var_b, slow_t, fast_t, nbytes, io):
    return Rec(module="posix", path="/d/shared", rank=-1, nprocs=4, opens=4, writes=16, bytes_written=nbytes,
               write_time=io, slowest_rank=3, fastest_rank=1, slowest_rank_bytes=slow_b, fastest_rank_bytes=fast_b,
               variance_bytes=var_b, slowest_time=slow_t, fastest_time=fast_t, max_byte_written=nbytes - 1,
               consec_writes=12)


def test_equal_bytes_within_the_noise_are_no_imbalance():
    # 170 B of 4 MiB, and a spread inside what ranks differ by here
    r = _shared(4 * MIB + 170, 4 * MIB, 5000.0, 0.012, 0.010, 16 * MIB + 170, 0.044)
    c = ctx_of([r], nprocs=4)
    c.rank_noise, c.rank_noise_why = 0.5, "measured"
    assert "stragglers" not in found(c)
    # the slowest rank moves fewer bytes: not given more bytes as the cause
    r = _shared(4 * MIB - 4096, 4 * MIB, 3e6, 0.05, 0.010, 16 * MIB, 0.1)
    c = ctx_of([r], nprocs=4)
    c.rank_noise, c.rank_noise_why = 0.5, "measured"
    got = found(c).get("stragglers", [])
    assert all("same amount" not in g.fix.text for g in got)


def test_uneven_bytes_and_a_slow_rank_name_their_cause():
    # 16, 4, 4, 4 MiB: the variance shows it even when the slowest rank by time is not the loaded one
    var = ((9 * MIB) ** 2 + 3 * (3 * MIB) ** 2) / 4
    c = ctx_of([_shared(4 * MIB, 4 * MIB, var, 0.01, 0.008, 28 * MIB, 0.036)], nprocs=4)
    got = found(c)["stragglers"][0]
    assert "same amount of data" in got.fix.text and "different amounts" in got.evidence.text
    # the same bytes, one rank 10x slower: beyond the noise, the cause is speed; unknown noise: a note only
    slow = _shared(4 * MIB, 4 * MIB, 0.0, 0.2, 0.01, 16 * MIB, 0.23)
    c = ctx_of([slow], nprocs=4)
    c.rank_noise, c.rank_noise_why = 0.5, "measured"
    got = found(c)["stragglers"][0]
    assert "same bytes at different speeds" in got.fix.text
    c = ctx_of([slow], nprocs=4)
    assert "stragglers" not in found(c) and any("not known" in n for n in c.notes)


def test_a_program_and_its_children_are_processes_not_ranks():
    """python3 through pyenv's shims: 50 shell processes, then the interpreter (process 50) does all the
    I/O. Not 51 ranks: no 'one rank does 100% of the I/O', and pario buffer without -n 51 (it would start
    51 copies of the program)."""
    recs = [writes("/d/so.dat", 3000, 100, rank=50)] + [Rec(module="posix", path=f"/d/conf{k}", rank=k, opens=1,
                                                            reads=1, bytes_read=10) for k in range(50)]
    got = found(ctx_of(recs, nprocs=51, no_mpi=True))
    assert "one-rank-io" not in got and "stragglers" not in got
    fix = got["posix-small-writes"][0].fix
    assert "(100%) to 1 file are smaller" in got["posix-small-writes"][0].evidence.text   # was '1 file(s)'
    assert fix.command.startswith("pario buffer --size ") and fix.command.endswith(" -- ./app"), fix.command
    assert "pario buffer -n" in (found(ctx_of(recs, nprocs=51))["posix-small-writes"][0].fix.command or "")
    from pario.report.advice_text import header
    said = header({"source": "so.log", "format": "pario", "nprocs": 51, "no_mpi": True, "run_time": 0.5,
                   "io_time": 0.01})
    assert "51 processes (the program and its children; none called MPI_Init), 500.0 ms run" in said[1], said


def test_copies_of_a_program_that_never_called_mpi_init():
    recs = [writes("/d/out", 16, MIB, rank=k) for k in range(4)]
    c = ctx_of(recs, nprocs=4, copies=4)
    got = found(c)
    assert got["non-mpi-copies"][0].title == "never called MPI_Init: 4 independent copies"
    assert "stragglers" not in got and "one-rank-io" not in got


def test_copies_writing_a_node_local_path_on_their_own_nodes_write_different_files():
    """Two copies on two nodes, each writing /tmp/out of its own node (a node-local file system):
    two files, not one file written twice over."""
    recs = [writes("/tmp/out", 16, MIB, rank=k, node=f"node{k + 1}") for k in range(2)]
    got = found(ctx_of(recs, nprocs=2, copies=2))
    text = got["non-mpi-copies"][0].evidence.text
    assert "written by 2 copies" not in text, text
    same = found(ctx_of([writes("/d/out", 16, MIB, rank=k) for k in range(2)], nprocs=2, copies=2))
    assert "written by 2 copies" in same["non-mpi-copies"][0].evidence.text
