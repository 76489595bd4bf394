"""Rows of the bad-input table (bad_inputs.py) for the files pario reads: profile logs, IOR
summaries, settings files in every dialect, hints files, results stores. Each row:
{"id", "argv", "files": {name: content}, "exit", "says", "stream"}; content is text, or
{"hex": ...} for bytes, {"repeat": [text, n]}, {"fifo": true}, {"dir": true}."""
from __future__ import annotations

import copy
import json
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
MODULES = ("posix", "stdio", "mpiio")


def good_log() -> dict:
    """A small valid job log (one process, one POSIX record): `pario profile show` prints it."""
    def module(prefix: str, records: list) -> dict:
        return {"counters": [f"{prefix}_BYTES_READ", f"{prefix}_MAX_BYTE_READ", f"{prefix}_READS"],
                "kinds": ["bytes", "offset", "count"], "ops": ["sum", "max", "sum"],
                "fcounters": [f"{prefix}_F_READ_TIME"], "fkinds": ["seconds"], "fops": ["sum"], "records": records}
    record = {"id": "0123456789abcdef", "path": "/scratch/data.bin", "rank": 0, "c": [4096, 4095, 1], "fc": [0.5],
              "sizes": [[4096, 1]], "sizes_other": 0, "strides": [], "strides_other": 0}
    process = {"format": "pario-profile", "version": 1, "kind": "process",
               "process": {"host": "node1", "pid": 42, "rank": -1, "nprocs": 0, "start": 1.0, "end": 2.0,
                           "reason": "exit", "partial": False, "cmdline": ["./app"]},
               "settings": {"mem_bound": 1 << 20, "trace": False},
               "limits": {"dropped_records": 0, "trace_kept": 0, "trace_dropped": 0, "trace_capacity": 0},
               "modules": {"posix": module("POSIX", [record]), "stdio": module("STDIO", []),
                           "mpiio": module("MPIIO", [])}}
    return {"format": "pario-profile", "version": 1, "kind": "job",
            "job": {"command": ["./app"], "launcher": "direct", "ranks": 0, "exit_code": 0, "start": 1.0, "end": 2.0},
            "processes": [process]}


def _set(doc: dict, path: list, value) -> dict:
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


_DELETE = object()
P0 = ["processes", 0]
REC = P0 + ["modules", "posix", "records", 0]


def _deep(n: int, leaf: str = "1") -> str:
    return "[" * n + leaf + "]" * n


def profile_rows() -> list[dict]:
    log = good_log()
    rows = [{"id": "profile show: a valid log is shown", "argv": ["profile", "show", "log.json"],
             "files": {"log.json": json.dumps(log)}, "exit": 0, "says": "", "stream": "stderr"}]
    mutations = [
        ("not JSON", "{\"format\": ", "not valid JSON"), ("empty file", "", "not valid JSON"),
        ("a number", "1", "not a pario profile log"), ("null", "null", "not a pario profile log"),
        ("a list", "[]", "not a pario profile log"), ("nested 100000 deep", _deep(100000), "levels deep"),
        ("nested 70 deep", '{"format": "pario-profile", "x": ' + _deep(70) + "}", "levels deep"),
        ("NaN", json.dumps(log).replace('"start": 1.0', '"start": NaN', 1), "not valid JSON"),
        ("Infinity", json.dumps(log).replace('"end": 2.0', '"end": Infinity', 1), "not valid JSON"),
        ("a huge integer", json.dumps(log).replace('"pid": 42', '"pid": ' + "9" * 5000, 1), "not valid JSON"),
        ("UTF-16", {"hex": json.dumps(log).encode("utf-16").hex()}, "not UTF-8"),
        ("binary", {"hex": "00ff00ff" * 64}, "not UTF-8"),
    ]
    edits = [
        ("version 2", ["version"], 2, "version 2"), ("version a string", ["version"], "1", "version '1'"),
        ("format other", ["format"], "darshan", "not a pario profile log"),
        ("kind other", ["kind"], "trace", "kind is 'trace'"), ("no processes", ["processes"], [], "processes has 0"),
        ("processes a dict", ["processes"], {}, "processes is an object"),
        ("processes a number", ["processes"], 5, "processes is an integer"),
        ("a process a number", P0, 1, "processes[0] is an integer"),
        ("a process null", P0, None, "processes[0] is null"),
        ("modules a number", P0 + ["modules"], 3, "modules is an integer"),
        ("no modules", P0 + ["modules"], _DELETE, "has no 'modules'"),
        ("no posix module", P0 + ["modules", "posix"], _DELETE, "has no 'posix'"),
        ("rank a string", P0 + ["process", "rank"], "x", "process.rank is a string"),
        ("pid a float", P0 + ["process", "pid"], 4.5, "process.pid is a number"),
        ("reason unknown", P0 + ["process", "reason"], "crash", "process.reason is 'crash'"),
        ("partial a string", P0 + ["process", "partial"], "no", "process.partial is a string"),
        ("nprocs negative", P0 + ["process", "nprocs"], -1, "must be at least 0"),
        ("start a string", P0 + ["process", "start"], "now", "process.start is a string"),
        ("cmdline a string", P0 + ["process", "cmdline"], "./app", "cmdline is a string"),
        ("limits missing", P0 + ["limits"], _DELETE, "has no 'limits'"),
        ("dropped records negative", P0 + ["limits", "dropped_records"], -3, "must be at least 0"),
        ("counters a dict", P0 + ["modules", "posix", "counters"], {}, "counters is an object"),
        ("kinds unknown", P0 + ["modules", "posix", "kinds", 0], "furlongs", "kinds[0] is 'furlongs'"),
        ("ops unknown", P0 + ["modules", "posix", "ops", 0], "avg", "ops[0] is 'avg'"),
        ("kinds short", P0 + ["modules", "posix", "kinds"], ["bytes"], "differ in length"),
        ("records a dict", P0 + ["modules", "posix", "records"], {}, "records is an object"),
        ("record id not hex", REC + ["id"], "xyz", "records[0].id"),
        ("record path a number", REC + ["path"], 7, "records[0].path is an integer"),
        ("counter values short", REC + ["c"], [4096], "has 1 values for 3 counters"),
        ("counter values long", REC + ["c"], [1, 2, 3, 4], "has 4 values for 3 counters"),
        ("negative byte count", REC + ["c", 0], -5, "impossible for a bytes counter"),
        ("negative op count", REC + ["c", 2], -1, "impossible for a count counter"),
        ("counter a string", REC + ["c", 0], "many", "c[0] is a string"),
        ("counter a float", REC + ["c", 0], 1.5, "c[0] is a number"),
        ("counter beyond int64", REC + ["c", 0], 1 << 70, "impossible for a bytes counter"),
        ("negative seconds", REC + ["fc", 0], -0.5, "impossible for a seconds counter"),
        ("time a string", REC + ["fc", 0], "slow", "fc[0] is a string"),
        ("sizes not pairs", REC + ["sizes"], [[1, 2, 3]], "sizes[0]"),
        ("sizes a number", REC + ["sizes"], 4, "sizes is an integer"),
        ("strides_other a string", REC + ["strides_other"], "x", "strides_other is a string"),
        ("hints a number", REC + ["hints"], 5, "hints is an integer"),
        ("trace events wrong", P0 + ["trace"], {"columns": ["module"], "events": []}, "trace.columns"),
        ("job ranks negative", ["job", "ranks"], -2, "must be at least 0"),
        ("job launcher unknown", ["job", "launcher"], "srun2", "job.launcher"),
    ]
    for name, content, says in mutations:
        rows.append({"id": f"profile show: {name}", "argv": ["profile", "show", "log.json"],
                     "files": {"log.json": content}, "exit": 2, "says": says})
    for name, path, value, says in edits:
        rows.append({"id": f"profile show: {name}", "argv": ["profile", "show", "log.json"],
                     "files": {"log.json": json.dumps(_set(log, path, value))}, "exit": 2, "says": says})
    # a process part (kind "process") alone, and a directory of parts
    part = log["processes"][0]
    rows += [
        {"id": "profile show: a part with a short counter list", "argv": ["profile", "show", "part.json"],
         "files": {"part.json": json.dumps(_set(part, ["modules", "posix", "records", 0, "c"], [1]))},
         "exit": 2, "says": "has 1 values for 3 counters"},
        {"id": "profile show: a parts directory with a bad part", "argv": ["profile", "show", "parts"],
         "files": {"parts": {"dir": True}, "parts/1.json": json.dumps(part), "parts/2.json": "{"},
         "exit": 2, "says": "not valid JSON"},
        {"id": "profile show: an empty directory", "argv": ["profile", "show", "parts"],
         "files": {"parts": {"dir": True}}, "exit": 2, "says": "holds no process logs"},
        {"id": "profile show: /dev/zero", "argv": ["profile", "show", "/dev/zero"], "files": {}, "exit": 2,
         "says": "not a regular file"},
        {"id": "profile show: a FIFO", "argv": ["profile", "show", "pipe"], "files": {"pipe": {"fifo": True}},
         "exit": 2, "says": "not a regular file"},
        {"id": "profile show: a missing file", "argv": ["profile", "show", "absent.json"], "files": {}, "exit": 2,
         "says": "does not exist"},
        {"id": "profile show: a file over the size bound", "argv": ["profile", "show", "big.json"],
         "files": {"big.json": {"sparse": (1 << 30) + 1}}, "exit": 2, "says": "more than the"},
    ]
    return rows


def ior_rows() -> list[dict]:
    base = json.loads((DATA / "ior4-mpiio-shared.json").read_text())
    rows = [{"id": "import-ior: IOR's own output is imported", "argv": ["results", "import-ior", "ior.json"],
             "files": {"ior.json": json.dumps(base)}, "exit": 0, "says": "", "stream": "stderr"}]
    t0, r0 = ["tests", 0], ["tests", 0, "Results", 0]
    edits = [
        ("bandwidth a string", r0 + ["bwMiB"], "fast", "bwMiB is a string"),
        ("negative bandwidth", r0 + ["bwMiB"], -100, "bwMiB is -100, must be at least 0"),
        ("negative time", r0 + ["totalTime"], -1.5, "totalTime is -1.5"),
        ("time a list", r0 + ["wrRdTime"], [1], "wrRdTime is a list"),
        ("access a number", r0 + ["access"], 1, "access is an integer"),
        ("no access", r0 + ["access"], _DELETE, "has no 'access'"),
        ("a result a number", r0, 5, "Results[0]"),
        ("Results an integer", t0 + ["Results"], 5, "Results is an integer"),
        ("Results a dict", t0 + ["Results"], {}, "Results is an object"),
        ("negative block size", t0 + ["Parameters", "blockSize"], -100, "blockSize is -100"),
        ("zero transfer size", t0 + ["Parameters", "transferSize"], 0, "transferSize is 0"),
        ("block size a string", t0 + ["Parameters", "blockSize"], "16m", "blockSize is a string"),
        ("segments a float", t0 + ["Parameters", "segmentCount"], 2.5, "segmentCount is a number"),
        ("repetitions zero", t0 + ["Parameters", "repetitions"], 0, "repetitions is 0"),
        ("filePerProc negative", t0 + ["Parameters", "filePerProc"], -1, "filePerProc is -1"),
        ("Parameters a list", t0 + ["Parameters"], [], "Parameters is a list"),
        ("tasks zero", t0 + ["Options", "tasks"], 0, "tasks is 0"),
        ("tasks a string", t0 + ["Options", "tasks"], "4", "tasks is a string"),
        ("nodes beyond tasks", t0 + ["Options", "nodes"], 10 ** 9, "nodes ran"),
        ("Options a string", t0 + ["Options"], "x", "Options is a string"),
        ("a test a number", t0, 5, "tests[0] is an integer"),
        ("tests a string", ["tests"], "x", "tests is a string"),
        ("tests empty", ["tests"], [], "tests has 0 items"),
        ("summary a dict", ["summary"], {}, "summary is an object"),
        ("Version a number", ["Version"], 4, "Version is an integer"),
    ]
    for name, path, value, says in edits:
        rows.append({"id": f"import-ior: {name}", "argv": ["results", "import-ior", "ior.json"],
                     "files": {"ior.json": json.dumps(_set(base, path, value))}, "exit": 2, "says": says})
    text = json.dumps(base, indent=1)
    for name, content, says in [
        ("truncated", text[: len(text) // 2], "not valid JSON"), ("truncated early", text[:40], "not valid JSON"),
        ("no JSON", "IOR-4.0.0: MPI Coordinated Test of Parallel I/O\n", "holds no JSON object"),
        ("fio's JSON", '{"fio version": "fio-3.33", "jobs": []}', "not IOR's summary"),
        ("nested deep", '{"tests": ' + _deep(100000) + "}", "nests deeper"),
        ("nested 70 deep", '{"tests": [' + _deep(70) + "]}", "nests deeper"),
        ("no per-iteration results", json.dumps(_set(base, t0 + ["Results"], [])), "no per-iteration results"),
        ("binary", {"hex": "ff" * 100}, "not UTF-8"), ("empty", "", "holds no JSON object"),
        ("NaN bare", text.replace('"iops": 638.0857', '"iops": NaN', 1), ""),
    ]:
        ok = name == "NaN bare"  # IOR writes nan as a bare word: read as null, as IOR means it
        rows.append({"id": f"import-ior: {name}", "argv": ["results", "import-ior", "ior.json"],
                     "files": {"ior.json": content}, "exit": 0 if ok else 2, "says": says,
                     **({"stream": "stderr"} if ok else {})})
    rows += [
        {"id": "import-ior: /dev/zero", "argv": ["results", "import-ior", "/dev/zero"], "files": {}, "exit": 2,
         "says": "not a regular file"},
        {"id": "import-ior: a directory", "argv": ["results", "import-ior", "d"], "files": {"d": {"dir": True}},
         "exit": 2, "says": "is a directory"},
        {"id": "import-ior: a FIFO", "argv": ["results", "import-ior", "p"], "files": {"p": {"fifo": True}},
         "exit": 2, "says": "not a regular file"},
        {"id": "import-ior: over the size bound", "argv": ["results", "import-ior", "big.json"],
         "files": {"big.json": {"sparse": (64 << 20) + 1}}, "exit": 2, "says": "more than the"},
    ]
    return rows
