"""The bad-input table's classes of paths and files (issue 30), generated from every command's parser:
each path a command writes or makes is given a place it cannot (under /proc, below a regular file,
below a directory that does not exist); each file it reads is given random bytes, an empty file and a
huge (sparse) one; each number a settings file holds, values too long, negative and not finite. A
flag added later gets its rows without a line here: its row's dest says what kind of path it is
(KIND), and a path flag of unknown kind fails the generator (say what it is, in KIND)."""
from __future__ import annotations

import argparse
import json

# What a path flag names, by its dest: a file pario writes (out), a directory it writes in (dir), a
# file it reads (in), a program it runs (exe), a directory or file it only looks at (look).
KIND = {"output": "out", "test_file": "out", "db": "out", "stats_dir": "dir", "dir": "dir",
        "hints_file": "in", "config": "in", "space_file": "in", "from_log": "in", "system": "in",
        "file": "in", "logs": "in", "stack": "look", "profile": "in", "advise": "in", "source": "in",
        "mpirun": "exe", "path": "look", "log": "in", "run_trials": "internal"}
# Places nothing can be written: a kernel file system, below a regular file, below a missing directory.
PLACES = [("/proc/pario-test/x", "under /proc"), ("empty.txt/x", "below a regular file"),
          ("/nonexistent-pario-test/sub/x", "below a missing directory")]
# Files no reader takes: random bytes (a fixed draw, so the table is the same each time), empty, huge.
RANDOM = "9f1c0e77d2a4b5c3e8f60112fe3a9d7c4b5e6f708192a3b4c5d6e7f8091a2b3c" * 48
FILES = [("random.bin", {"hex": RANDOM}, "random bytes"), ("empty.txt", "", "empty"),
         ("huge.bin", {"sparse": 5 << 30}, "huge (5 GiB, sparse)")]


def _path_actions(parser: argparse.ArgumentParser):
    for action in parser._actions:
        row = getattr(action.type, "row", None)
        if row is not None and row.kind == "path" and action.option_strings:
            kind = KIND.get(action.dest)
            if kind is None:
                raise SystemExit(f"bad_input_classes.py: path flag {action.option_strings} (dest {action.dest}) "
                                 "has no KIND: say whether pario writes, makes, reads, runs or looks at it")
            yield action, kind


def _log() -> str:
    """A sound pario profile log, small: one process, one file, 1000 writes of 512 B (advise's rows
    reach their flags with it: an empty log was refused first)."""
    names = ["POSIX_OPENS", "POSIX_SIZE_WRITE_100_1K", "POSIX_BYTES_WRITTEN", "POSIX_FILE_ALIGNMENT",
             "POSIX_CONSEC_WRITES", "POSIX_SEQ_WRITES", "POSIX_NPROCS"]
    module = {"counters": names, "kinds": ["count"] * len(names), "ops": ["sum"] * len(names),
              "fcounters": ["POSIX_F_WRITE_TIME"], "fkinds": ["seconds"], "fops": ["sum"],
              "records": [{"id": "00000000000000aa", "path": "/nonexistent-dir/out", "rank": 0,
                           "c": [1, 1000, 512000, 4096, 999, 999, 1], "fc": [0.5], "sizes": [[512, 1000]],
                           "sizes_other": 0, "strides": [[512, 999]], "strides_other": 0}]}
    proc = {"format": "pario-profile", "version": 1, "kind": "process",
            "process": {"host": "h", "pid": 1, "rank": -1, "nprocs": 0, "start": 0.0, "end": 1.0, "reason": "exit",
                        "partial": False, "cmdline": ["./app"]},
            "settings": {}, "limits": {"dropped_records": 0, "trace_kept": 0, "trace_dropped": 0, "trace_capacity": 0},
            "modules": {"posix": module, "stdio": dict(module, records=[]), "mpiio": dict(module, records=[])}}
    return json.dumps({"format": "pario-profile", "version": 1, "kind": "job", "job": {"command": ["./app"]},
                       "processes": [proc]})


# (command, dest) whose path the row's command line never uses: nothing to refuse (exit 0). report
# --profile draws a log (no store read); advise --no-calibrate measures nothing (--dir is where it would).
UNUSED = {("report", "db"), ("advise", "dir"), ("predict", "dir")}   # predict: --dir is --calibrate's
# (command, dest, class) that is sound: buffer --env prints `mkdir -p DIR` for the job script to make it
# settings check --dir: a job directory not made yet is judged by the directory it will be made in
SOUND_CLASSES = {("buffer", "stats_dir", "below a missing directory"),
                 ("settings check", "dir", "below a missing directory")}
SOUND = {"buffer": (["buffer", "--env", "--stats"], [], {}),
         "settings check": (["settings", "check", "ok.txt"], [], {"ok.txt": "cb_nodes 2\n"}),
         "advise": (["advise", "--no-calibrate"], ["app.log"], {"app.log": _log()}),
         "report": (["report", "--profile", "app.log"], [], {"app.log": _log()})}


def class_rows(parsers, context: dict) -> list[dict]:
    """Rows of every path flag of every command: (id, argv, files, exit 2, says a fragment). The
    fragment is the path as given (the one line names what is wrong with it)."""
    rows = []
    for command, parser in parsers:
        before, after, sound = SOUND.get(command, (*context[command], {}))
        for action, kind in _path_actions(parser):
            flag = action.option_strings[-1]
            if kind in ("out", "dir"):
                values = [(place, what, place.split("/x")[0] if "empty.txt" not in place else "empty.txt")
                          for place, what in PLACES]
            elif kind == "in":
                values = [(name, what, name) for name, _, what in FILES]
            else:   # a program, a place looked at (bench_rows': --mpirun, stack PATH), tune's --run-trials
                continue
            for value, what, says in values:
                rows.append({"id": f"{command} {flag} {what}", "argv": before + [flag, value] + after,
                             "files": {"empty.txt": "", **sound, **{n: c for n, c, _ in FILES if n == value}},
                             "exit": 0 if (command, action.dest) in UNUSED or (command, action.dest, what)
                             in SOUND_CLASSES else 2, "says": says})
    return rows


def number_rows() -> list[dict]:
    """The numbers a settings file holds (a ROMIO hints file, as settings check and bench --hints-file
    read it): far too long (a 100,000-digit value ended in a traceback), negative, not finite."""
    rows = []
    for value, says in [("9" * 100000, "100,000 digits"), ("-4", "out of range"), ("nan", "cb_nodes"),
                        ("inf", "cb_nodes"), ("1e999", "cb_nodes"), ("99999999999999999999", "out of range")]:
        text = f"cb_nodes {value}\n"
        short = value if len(value) < 20 else f"{len(value)} digits"
        rows.append({"id": f"settings check: cb_nodes {short}", "argv": ["settings", "check", "hints.txt"],
                     "files": {"hints.txt": text}, "exit": 1, "says": says, "stream": "stdout"})
        rows.append({"id": f"bench --hints-file: cb_nodes {short}",
                     "argv": ["bench", "--no-probe", "-a", "mpiio", "-w", "--hints-file", "hints.txt"],
                     "files": {"hints.txt": text}, "exit": 2, "says": says})
    return rows


# The files commands take as positional arguments: (argv before the file, exit expected). A settings
# file of another tool is the same bytes under its name (random bytes passed settings check with
# "0 error(s)"), and 5,000 unknown keys are 5,000 errors, not a pass.
POSITIONAL = [(["settings", "check"], 2), (["results", "import"], 2), (["results", "import-ior"], 2),
              (["advise", "--no-calibrate"], 2), (["profile", "show"], 2), (["report", "--profile"], 2)]


def positional_rows() -> list[dict]:
    rows = []
    for before, code in POSITIONAL:
        for name, content, what in FILES:
            rows.append({"id": f"{' '.join(before)} FILE {what}", "argv": before + [name],
                         "files": {name: content}, "exit": code, "says": name})
    for name in ("romio.json", "settings.xml", "mpich.env", "hints.h5"):
        rows.append({"id": f"settings check: random bytes as {name}", "argv": ["settings", "check", name],
                     "files": {name: {"hex": RANDOM}}, "exit": 2, "says": name})
    unknown = "".join(f"unknown_key_{i} 1\n" for i in range(5000))
    rows.append({"id": "settings check: 5,000 unknown keys", "argv": ["settings", "check", "many.txt"],
                 "files": {"many.txt": unknown}, "exit": 1, "says": "many.txt:5000: error: unknown setting",
                 "stream": "stdout"})
    rows.append({"id": "bench --hints-file: 5,000 unknown keys",
                 "argv": ["bench", "--no-probe", "-a", "mpiio", "-w", "--hints-file", "many.txt"],
                 "files": {"many.txt": unknown}, "exit": 2, "says": "unknown MPI-IO hint 'unknown_key_0'"})
    return rows
