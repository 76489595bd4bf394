"""The merged job log on disk (version 2): what every process has alike is written once, and
`load` gives back version 1's shape exactly."""
from __future__ import annotations

import copy
import json

from pario.analysis.profile.logread import compact, expand, job_from_parts, load
from profile_support import ROOT  # noqa: F401  (puts src/ on sys.path)

NAMES = {"counters": ["A_OPENS", "A_BYTES"], "kinds": ["count", "bytes"], "ops": ["sum", "sum"],
         "fcounters": ["A_F_TIME"], "fkinds": ["seconds"], "fops": ["sum"]}


def _proc(rank, records=(), **extra):
    return {"format": "pario-profile", "version": 1, "kind": "process", "pario_version": "0.1.0",
            "process": {"host": "n1", "pid": 100 + rank, "rank": rank, "nprocs": 3, "fork_parent": None,
                        "exe": "/a.out", "cmdline": ["./a.out"], "launcher_rank": rank, "start": 1.0 + rank,
                        "end": 9.0, "reason": "exit", "partial": False, "mpi_finalized": True},
            "settings": {"mem_bound": 1, "trace": False}, "limits": {"dropped_records": 0},
            "modules": {"posix": {**NAMES, "records": list(records)},
                        "mpiio": {**NAMES, "records": []}}, **extra}


def _rec(path, rank):
    return {"id": "x", "rank": rank, "c": [1, 2], "fc": [0.5], "path": path, "sizes": [], "sizes_other": 0,
            "strides": [], "strides_other": 0}


def test_round_trip_is_exact():
    doc = job_from_parts([_proc(0, [_rec("/f", -1)]), _proc(1), _proc(2, trace={"events": []}),
                          ], {"command": ["./a.out"], "ranks": 3})
    doc["processes"][1]["limits"] = {"dropped_records": 4}
    before = copy.deepcopy(doc)
    small = compact(doc)
    assert small["version"] == 2 and small["names"]["posix"] == NAMES
    assert "modules" not in small["processes"][1]  # no records of its own: nothing but what differs
    assert set(small["processes"][1]["process"]) == {"pid", "rank", "launcher_rank", "start"}
    assert expand(json.loads(json.dumps(small))) == before
    assert len(json.dumps(small)) < len(json.dumps(before)) / 2


def test_load_reads_both_versions(tmp_path):
    doc = job_from_parts([_proc(0, [_rec("/f", 0)]), _proc(1)], {"ranks": 2})
    (tmp_path / "v1.json").write_text(json.dumps(doc))
    (tmp_path / "v2.json").write_text(json.dumps(compact(doc)))
    assert load(tmp_path / "v1.json") == load(tmp_path / "v2.json") == doc


def test_a_module_with_other_names_is_kept_whole():
    odd = _proc(1)
    odd["modules"]["posix"] = {**NAMES, "counters": ["B_OPENS", "B_BYTES"], "records": [_rec("/g", 1)]}
    doc = job_from_parts([_proc(0), odd], {})
    assert expand(compact(doc)) == doc
