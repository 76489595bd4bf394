"""Data for the report tests, made here: stored bench runs (result_factory documents), profile logs
of the known-I/O programs run under the profiler with --trace, advise findings and a tuning session."""
from __future__ import annotations

from pathlib import Path

from pario.analysis.summary import headline
from pario.model.findings import Evidence, Finding, Fix, Verification
from pario.model.tuning import Dropped, Trial, TuningSession, Winner
from pario.store import Store
from result_factory import case, result

HINTS = {"requested": {"romio_cb_write": "enable", "striping_unit": "1048576"},
         "effective": {"romio_cb_write": "enable", "cb_buffer_size": "16777216"}, "source": "MPI_File_get_info"}
CEILING = {"write_mib": 600.0, "read_mib": 2000.0}


def bench_cases(scale: float = 1.0, evil: str = "") -> list[dict]:
    """Two data cases, 3 repetitions, 4 ranks: shared MPI-IO with hints, file per process above
    the device ceiling (flagged cache?); rank 3 late in every phase."""
    shared = case("shared-mpiio" + evil, 0, backend="mpiio", strategy="shared", write=[400.0 * scale, 420.0, 410.0],
                  read=[900.0, 950.0 * scale, 1000.0], hints=HINTS, collective=True)
    fpp = case("fpp-posix", 1, write=[800.0 * scale, 900.0, 850.0], read=[3000.0, 3100.0, 3050.0 * scale])
    for c in (shared, fpp):
        for p in c["phases"]:
            extra = p["open_to_close_s"] * 0.5                # rank 3 transfers for half as long again
            p["ranks"]["xfer"][3] += extra
            p["ranks"]["done"][3] += extra
            p["last_done_s"] = p["open_to_close_s"] = max(p["ranks"]["done"])
    return [shared, fpp]


def add_run(db: str, cases: list[dict], env: dict | None = None, command: str = "pario bench -n 4") -> int:
    doc = result(*cases)
    return Store(db).add_run(kind="bench", command=command, spec={"cases": [{"name": c["name"]} for c in cases]},
                             env=env if env is not None else {"ceiling": CEILING, "ranks": 4, "dir": "/scratch/x"},
                             result=doc, status="complete", headline=headline(doc))


def findings() -> list[Finding]:
    return [
        Finding(rule="posix-small-writes", title="130 small writes to edges.dat and alt.dat",
                evidence=Evidence(text="100 of 130 writes are under 1 MiB", counters={"POSIX_WRITES": 130},
                                  files=["/scratch/edges.dat"], ranks=[0]),
                fix=Fix(kind="buffer", text="Coalesce the small writes.", command="pario buffer -- ./app"),
                seconds_at_stake=2.5, estimate="write time of the small writes", confidence="high",
                verification=Verification(before_s=2.5, after_s=0.5, runs=[3, 4], note="same bytes"),
                plot="profile1-sizes"),
        Finding(rule="mpiio-hint-ignored", title="striping_unit was not applied",
                evidence=Evidence(text="requested 1048576, absent after open"),
                fix=Fix(kind="settings", text="Set the layout on the directory instead.",
                        settings={"striping_unit": "1048576"}, rendered={"romio": "striping_unit 1048576"}),
                seconds_at_stake=None, plot="run1-settings"),
        Finding(rule="needs-a-plot-not-here", title="A finding whose plot is not on the page",
                evidence=Evidence(text="x"), fix=Fix(kind="code", text="y"), seconds_at_stake=9.0,
                plot="tune7-trials"),
    ]


def session() -> TuningSession:
    trials = [Trial(number=0, settings={}, state="control", rates=[400.0, 410.0, 405.0], median=405.0),
              Trial(number=1, settings={"cb_nodes": "2"}, state="complete", rates=[450.0, 470.0, 460.0], median=460.0),
              Trial(number=2, settings={"cb_nodes": "4"}, state="complete", rates=[300.0, 310.0], median=305.0),
              Trial(number=3, settings={"cb_nodes": "1"}, state="pruned", rates=[200.0], median=200.0),
              Trial(number=4, settings={}, state="control", rates=[395.0, 400.0, 402.0], median=400.0),
              Trial(number=5, settings={"cb_nodes": "2", "romio_cb_write": "enable"}, state="complete",
                    rates=[520.0, 530.0, 525.0], median=525.0),
              Trial(number=6, settings={"cb_nodes": "8"}, state="failed", rates=[], median=None, note="open failed")]
    case = {"name": "shared-mpiio", "backend": "mpiio", "strategy": "shared", "ops": ["write"]}
    return TuningSession(id=1, case=case, objective="write", ranks=4,
                         space={"cb_nodes": ["1", "2", "4", "8"], "romio_cb_write": ["enable", "disable"]},
                         trials=trials, dropped=[Dropped("striping_factor", "not Lustre: ignored by the MPI")],
                         importance={"cb_nodes": 0.7, "romio_cb_write": 0.3},
                         winner=Winner(settings={"cb_nodes": "2", "romio_cb_write": "enable"}, gain=1.3,
                                       interval=(1.22, 1.38), method="bootstrap of medians, 2000 resamples",
                                       runs=[11, 15], rendered={"romio": "cb_nodes 2\nromio_cb_write enable"},
                                       verdict="faster", trial=5, median=525.0, default_median=402.5),
                         status="done")


def profile_dir(tmp_path: Path, lib: str, compile_c, run_profiled, programs=("posix_seq", "sizes")) -> Path:
    """A directory of process logs (with --trace) of the known-I/O programs, each in its own work dir."""
    logs = tmp_path / "logs"
    for name in programs:
        exe = compile_c(tmp_path, name, "-O2")
        work = tmp_path / f"work-{name}"
        work.mkdir()
        proc = run_profiled(lib, [exe, work], logs, {"PARIO_PROFILE_TRACE": "1"})
        assert proc.returncode == 0, proc.stderr
    return logs
