"""The table of bad and edge-case inputs across every command (issue 16), generated here and kept in
tests/python/data/bad-inputs.jsonl, which test_bad_inputs.py runs. Regenerate after changing a
message or a flag:

    .venv/bin/python tests/python/bad_inputs.py --write

(the venv's pario, as `make setup` installs it: the flags' ranges come from the built engine's
limits, data/engine-options.json, which a bare src/ tree does not have).

Each row: "id"; "argv" (after `pario`); "files" written into the row's own directory first;
"exit" expected; "says", a fragment of the one line expected on "stream" (stderr unless said).
Argument placeholders: {mpirun} is the recording launcher of the test (it records any launch).
The flag rows come from the commands' own parsers: every flag that takes a value is given the
values its kind must refuse."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from bad_input_classes import class_rows, number_rows, positional_rows
from bad_input_commands import command_rows
from bad_input_docs import ior_rows, profile_rows
from bad_input_settings import hints_file_rows, settings_rows, store_rows

TABLE = Path(__file__).resolve().parent / "data" / "bad-inputs.jsonl"

# Values each kind of flag must refuse (and the word the refusal says), by kind and range.
BAD = {
    "int": [("abc", "needs an integer"), ("2.5", "needs an integer"), ("", "needs a value"),
            ("1e3", "needs an integer"), ("0x10", "needs an integer"), (" ", "needs a value"),
            ("9" * 30, "out of range"), ("-99999999999999999999", "out of range")],
    "size": [("3x", "is not a size"), ("-1", "out of range"), ("", "needs a value"), ("1e6", "is not a size"),
             ("0x10", "is not a size"), ("1.5m", "is not a size"), ("m", "is not a size"),
             ("99999999999t", "out of range")],
    "float": [("nan", "needs a number"), ("inf", "needs a number"), ("-1", "out of range"), ("abc", "needs a number"),
              ("", "needs a number"), ("1e999", "needs a finite number"), ("1_000", "needs a number")],
    "choice": [("", "must be one of"), ("bogus", "must be one of")],
    "str": [("", "needs a value"), ("a\x01b", "control character")],
    "path": [("", "needs a value"), ("a\x00b", "control character")],
    "dims": [("", "needs a value")],
    "list": [("", "names no phase"), (",", "names no phase")],
}
# How to reach each command's flags with otherwise sound arguments.
CONTEXT = {"bench": (["bench", "-w", "--no-probe"], []), "results": (["results"], []),
           "tune": (["tune", "-a", "mpiio", "-w", "--no-probe"], []), "report": (["report"], []),
           "profile": (["profile"], ["--", "true"]), "stack": (["stack", "--no-probe"], []),
           "settings render": (["settings", "render", "--set", "cb_nodes=2"], []),
           "settings check": (["settings", "check", "empty.txt"], []),
           "advise": (["advise", "--no-calibrate"], ["empty.txt"]), "buffer": (["buffer"], ["--", "true"]),
           "results compare": (["results", "compare", "1", "2"], []),
           "results export": (["results", "export", "1"], []),
           "predict": (["predict", "--system", "archer2"], [])}


def _parsers():
    from pario.cli import build_parser

    root = build_parser()
    subs = next(a for a in root._actions if a.__class__.__name__ == "_SubParsersAction").choices
    yield "bench", subs["bench"]
    yield "results", subs["results"]
    yield "profile", subs["profile"]
    yield "stack", subs["stack"]
    for name in ("tune", "report", "advise", "buffer", "predict"):  # the capability commands: the same bad values
        if name in subs:
            yield name, subs[name]
    results = next(a for a in subs["results"]._actions if a.__class__.__name__ == "_SubParsersAction").choices
    yield "results compare", results["compare"]
    yield "results export", results["export"]
    settings = next(a for a in subs["settings"]._actions if a.__class__.__name__ == "_SubParsersAction").choices
    yield "settings render", settings["render"]
    yield "settings check", settings["check"]


def flag_rows() -> list[dict]:
    rows = []
    for command, parser in _parsers():
        before, after = CONTEXT[command]
        for action in parser._actions:
            row = getattr(action.type, "row", None)
            if not action.option_strings or row is None:
                continue
            flag = action.option_strings[-1]
            says = f"argument {'/'.join(action.option_strings)}"
            values = list(BAD.get(row.kind, []))
            if row.lo is not None and row.lo >= 1 and row.kind in ("int", "size"):
                values += [("0", "out of range")]
            if row.lo is not None and row.lo >= 0 and row.kind == "int":
                values += [("-1", "out of range")]
            if row.hi is not None and row.kind in ("int", "size") and row.hi < 1 << 62:
                values += [(str(int(row.hi) + 1), "out of range")]
            if row.kind == "float" and row.lo is not None and row.lo > 0:
                values += [("0", "out of range")]
            if row.kind == "float" and row.hi is not None:
                values += [("1e12", "out of range")]
            for value, word in values:
                rows.append({"id": f"{command} {flag} {value!r}", "argv": before + [flag, value] + after,
                             "files": {"empty.txt": ""}, "exit": 2, "says": f"{says}: "})
                rows[-1]["also"] = word
    return rows


def bench_rows() -> list[dict]:
    """Cases that pass argparse and must be refused by the checks of the case, before any launch."""
    b = ["bench", "--no-probe"]
    rows = []
    for args, says in [
        (["-t", "3k", "-b", "4k"], "does not divide"), (["-t", "12", "-b", "24"], "multiple of 8"),
        (["-t", "4", "-b", "8"], "multiple of 8"), (["-c"], "add -a mpiio or drop -c"),
        (["--view"], "add -a mpiio or drop --view"), (["-a", "mpiio", "--strategy", "nfiles:8", "-n", "2"], "nfiles:8"),
        (["-a", "mpiio", "--strategy", "nfiles:0"], "K >= 1"), (["--strategy", "nfiles:x"], "nfiles:K"),
        (["--strategy", "nfile:2"], "nfiles"), (["--strategy", "everything"], "unknown"),
        (["-a", "mpiio", "--strategy", "serial", "-c"], "one writer"), (["-a", "mpiio", "--aggregate", "--view"],
                                                                        "one writer"),
        (["-a", "mpiio", "--view", "-z"], "random"), (["--odirect", "-t", "1000", "-b", "8000"], "nearest valid -t"),
        (["--odirect", "-t", "4k", "-b", "6k"], "does not divide"), (["--pattern", "subarray"], "--dims"),
        (["--pattern", "subarray", "--dims", "0x4"], "--dims"), (["--pattern", "subarray", "--dims", "axb"], "--dims"),
        (["--pattern", "subarray", "--dims", "1x2x3x4x5x6x7x8x9"], "--dims"), (["--dims", "4x4"], "subarray only"),
        (["-a", "mpiio", "--pattern", "subarray", "--dims", "4x4x4", "-t", "384", "--view"], "does not divide"),
        (["-a", "mpiio", "--hint", "romio_cb_writ=enable"], "did you mean romio_cb_write"),
        (["--hint", "cb_nodes=2"], "MPI-IO hints apply to"), (["-a", "posixx"], "did you mean posix"),
        (["-a", "x" * 40], "at most 31"), (["-a", "null", "-W"], "nothing to verify"),
        (["-F", "--strategy", "shared"], "contradicts"), (["-z", "--pattern", "segmented"], "contradicts"),
        (["-F", "-b", "1000t"], "is free"), (["-t", "4g", "-b", "4g"], "out of range"),
        (["-a", "adios2", "-c"], "ADIOS2 BP5 has no collective"),
        (["-a", "netcdf4", "--odirect"], "POSIX setting"), (["--suite", "layers", "-a", "hdf5"], "own cases"),
        (["--name", "n" * 200], "at most 127"), (["-Q", "-2"], "argument -Q/--reorder"),
        (["-a", "mpiio", "-w", "--hint", "nokey"], "NAME=VALUE"), (["-a", "mpiio", "--hint", "=v"], "NAME=VALUE"),
        (["-a", "mpiio", "--hint", "cb_nodes="], "NAME=VALUE"),
        (["-a", "mpiio", "--hint", "cb_nodes=16mb"], "'16mb' is read as 16"),
        (["-a", "mpiio", "--hint", "cb_nodes=99999999999"], "out of range"),
        (["-a", "mpiio", "--hint", "cb_buffer_size=0x10"], "'0x10' is read as 0"),
        (["-a", "mpiio", "--hint", "cb_config_list=" + "h" * 300], "at most 255"),
        (["-a", "mpiio", "--hint", "romio_cb_write=Enable"], "spelled enable"),
        (["-a", "mpiio", "--hint", "romio_filesystem_type=ufs"], "reported by ROMIO"),
        (["-a", "hdf5", "--lib", "alignment"], "KEY=VALUE"), (["-a", "hdf5", "--lib", "alignmnt=1m"], "alignment"),
        (["-a", "hdf5", "--lib", "chunk_opt=two"], "chunk_opt is one of"),
        (["-a", "hdf5", "--lib", "chunk=0"], "chunk"),
        (["-a", "hdf5", "--lib", "alignment=0"], "alignment is"), (["-a", "hdf5", "--lib", "align_threshold=1m"],
                                                                   "needs --lib alignment"),
        (["-a", "pnetcdf", "--lib", "mode=iput", "--lib", "nb_batch=0"], "number of requests"),
        (["-a", "netcdf4", "--lib", "alignment=4g"], "alignment is"),
        (["-a", "adios2", "--lib", "NumAggregators=0"], "NumAggregators is"),
        (["-a", "adios2", "--lib", "NumAggregators=lots"], "NumAggregators is"),
        (["-a", "adios2", "--lib", "NumAggregators=99999999999"], "NumAggregators is"),
        (["-a", "adios2", "--lib", "AsyncWrite=maybe"], "AsyncWrite is"),
        (["-a", "adios2", "--lib", "AggregationType=fastest"], "AggregationType is"),
        (["-a", "adios2", "--lib", "InitialBufferSize=1"], "InitialBufferSize is"),
        (["-a", "adios2", "--lib", "GrowthFactor=nan"], "GrowthFactor is"),
        (["-a", "adios2", "--lib", "StatsLevel=2"], "StatsLevel is"),
        (["-a", "posix", "--lib", "mode=iput"], "apply to the library layers"),
        (["--metadata", "-a", "mpiio"], "POSIX calls"), (["--metadata", "-t", "1m"], "does not apply"),
        (["--metadata", "-w"], "does not apply"), (["--files-per-dir", "10"], "metadata workload only"),
        (["--metadata", "--depth", "8", "--branching", "64", "--files-per-dir", "2"], "too large"),
        (["--metadata", "--md-ops", "create,bogus"], "unknown"), (["--metadata", "--file-size", "2g"], "out of range"),
        (["--mpirun", "/bin/false", "-F"], "not an MPI launcher"), (["--mpirun", "/bin/echo", "-F"],
                                                                    "not an MPI launcher"),
        (["--mpirun", "/bin/true", "-F"], "not an MPI launcher"), (["--mpirun", "/no/such/mpirun", "-F"], "not found"),
        (["--mpirun", "/etc/passwd", "-F"], "not found or not executable"),
        (["--mpirun", "/tmp", "-F"], "not found or not executable"),
        (["-a", "mpiio", "--pattern", "subarray", "--dims", "2000000000x2", "-c", "-n", "4"], "2^31 - 1"),
        (["-b", "4g", "-s", "9999999999", "-n", "4", "-w"], "beyond the 2^63 bytes"),
        (["--strategy", "s" * 5000], "at most 4096"),
        (["--size", "100t"], "is free"), (["--dir", "empty.txt", "-F"], "not a directory"),
        (["--db", "empty.txt/x.db", "-F"], "cannot create the results directory"),
        (["--db", "garbage.db", "-F"], "not a database"), (["--config", "absent.toml"], "does not exist"),
        (["--config", "/dev/zero"], "not a regular file"), (["--config", "empty.txt"], "no [[case]] tables"),
        (["--hints-file", "absent.txt", "-a", "mpiio"], "does not exist"),
        (["--preset", "bogus"], "unknown preset"), (["--preset", "empty.txt", "-n", "2"], "empty.txt"),
        (["--preset", "./garbage.db"], "not valid TOML"), (["--scale", "2"], "add --preset"),
        (["--preset", "/dev/zero"], "not a regular file"), (["--preset", "./absent.toml"], "no such file"),
        (["--preset", "./deep.toml"], "levels deep"), (["--preset", "./dir/"], "is a directory"),
        (["-a", "mpiio", "--pattern", "btio", "--class", "Z", "-n", "4"], "NAS classes are"),
        (["-a", "mpiio", "--pattern", "btio", "-t", "1m", "-n", "4"], "does not apply to --pattern btio"),
        (["-a", "mpiio", "--pattern", "btio", "--grid", "0x4x4", "-n", "4"], "positive dimensions"),
        (["-a", "mpiio", "--pattern", "btio", "--grid", "4x4", "-n", "4"], "x, y and z"),
        (["-a", "mpiio", "--pattern", "btio", "-n", "3"], "square number of ranks"),
        (["-a", "mpiio", "--pattern", "btio", "-n", "4", "--grid", "9" * 11 + "x" + "9" * 11 + "x99", "--steps", "9"],
         "over MPI's 2 GiB per call"),
        (["--pattern", "btio", "-n", "4"], "runs through -a mpiio"), (["--class", "A"], "applies to --pattern btio"),
    ]:
        rows.append({"id": "bench " + " ".join(a[:30] for a in args), "argv": b + args,
                     "files": {"empty.txt": "", "garbage.db": "not SQLite\n" * 20}, "exit": 2, "says": says})
        if "--preset" in args:  # the preset files some rows name
            rows[-1]["files"].update({"deep.toml": "a = " + "[" * 3000 + "]" * 3000, "dir": {"dir": True}})
    rows.append({"id": "pario bogus", "argv": ["bogus"], "exit": 2, "says": "invalid choice"})
    rows += [{"id": f"profile {' '.join(a)}", "argv": ["profile"] + a, "files": {"d": {"dir": True}, "empty.txt": ""},
              "exit": e,
              "says": s} for a, e, s in [([], 2, "nothing to profile"), (["--"], 2, "nothing to profile"),
                                         (["-o", "d", "--", "true"], 2, "is a directory"),
                                         (["--", "/no/such/program"], 127, "no such program"),
                                         (["--", "./empty.txt"], 126, "permission denied"),
                                         (["show"], 2, "missing log"), (["show", ""], 2, "needs a value")]]
    rows += [{"id": f"stack {' '.join(a)}", "argv": ["stack", "--no-probe"] + a, "exit": 2, "says": s}
             for a, s in [(["/no/such/dir"], "does not exist"), (["--mpirun", "/bin/false"], "not an MPI launcher"),
                          (["a", "b"], "unrecognized arguments")]]
    return rows


def job_rows() -> list[dict]:
    """Job files: every key given values of the wrong type or range, and broken files."""
    def job(case: str, defaults: str = "") -> str:
        return f"[defaults]\n{defaults}\n[[case]]\n{case}\n"
    bad_values = {
        "reps": ["0", '"three"', "true", "2.5", "1000000000000", "-1", "[1]", "{a = 1}"],
        "segments": ["0", '"x"', "false", "1.5", "-4"], "seed": ["-1", '"x"', "1.5"],
        "name": ["{a = 1}", "[1]", '""', '"' + "n" * 200 + '"', "5", '"a\\u0001b"'],
        "ops": ['"bogus"', "[1]", "{a = 1}", "[]", '"write,bogus"', "5"],
        "backend": ["5", '"bogus"', '""', "[\"posix\"]"], "transfer": ['"3x"', "-1", "0", "2.5", "true", '"4g"'],
        "block": ['"x"', "-8", "0", "{a = 1}"], "strategy": ["5", '"nfiles:x"', '"bogus"'],
        "pattern": ['"spiral"', "5"], "dims": ['"0x0"', "[0]", '["a"]', "7"],
        "hints": ['"cb_nodes=2"', "[1]", '{cb_nodes = {a = 1}}', '{cb_nodes = "16mb"}', "{bogus = 1}",
                  '{cb_nodes = [2]}'],
        "hints_file": ["5", '"absent.txt"', '""'], "lib": ['"x"', "{alignment = [1]}", "[1]"],
        "workload": ['"io"', "5"], "reorder": ["-5", '"far"', "2.5"], "buffer_max": ["0", '"big"'],
        "collective": ['"yes"', "1"], "keep": ['"no"'], "view": ["0"], "aggregate": ['"true"'],
        "btio_class": ["5", '"Z"'], "grid": ['"4x4"', "0", '"axb"', "[0]"], "steps": ["0", '"many"', "1.5"],
    }
    md = {"files_per_dir": ["0", '"many"', "-1", "2000000000"], "depth": ["9", "-1"], "branching": ["0", "65"],
          "per_rank_dirs": ['"yes"'], "file_size": ["-1", '"big"', '"2g"']}
    rows = []
    for key, values in bad_values.items():
        for v in values:
            rows.append({"id": f"job: {key} = {v[:30]}", "argv": ["bench", "--no-probe", "--config", "job.toml"],
                         "files": {"job.toml": job(f"{key} = {v}\nname = \"c\"" if key != "name" else f"{key} = {v}"),
                                   "empty.txt": ""}, "exit": 2, "says": "job.toml"})
    for key, values in md.items():
        for v in values:
            rows.append({"id": f"job: metadata {key} = {v}", "argv": ["bench", "--no-probe", "--config", "job.toml"],
                         "files": {"job.toml": job(f'workload = "metadata"\n{key} = {v}')}, "exit": 2,
                         "says": "job.toml"})
    for name, text, says in [
        ("not TOML", "[[case]\nreps = 3\n", "not valid TOML"), ("no cases", "[defaults]\nreps = 3\n", "no [[case]]"),
        ("case a number", "case = 5\n", "no [[case]]"),
        ("case a list of numbers", "case = [1, 2]\n", "must be a table"),
        ("defaults a number", "defaults = 5\n[[case]]\nreps = 1\n", "must be a table"),
        ("an unknown table", "[run]\n[[case]]\nreps = 1\n", "unknown table"),
        ("an unknown key", job("repz = 3"), "did you mean reps"), ("a key twice", job("reps = 3\niterations = 2"),
                                                                     "given twice"),
        ("reps 0 under -i 2", job("reps = 0"), "reps ="), ("deep nesting", "a = " + "[" * 3000 + "]" * 3000, ""),
        ("binary", {"hex": "ff" * 50}, "not UTF-8"), ("over 1 MiB", {"repeat": ["# padding\n", 120000]}, "more than"),
        ("a 2 MiB line", {"repeat": ["#", 2 << 20]}, "more than"),
        ("a NUL byte", "[[case]]\nreps = 1\x00\n", "NUL byte"),
        ("metadata with hints", job('workload = "metadata"\nhints = {cb_nodes = "2"}'), "does not apply"),
        ("metadata with transfer", job('workload = "metadata"\ntransfer = "1m"'), "does not apply"),
        ("data with files_per_dir", job("files_per_dir = 3"), "metadata workload only"),
        ("nfiles beyond ranks", job('backend = "mpiio"\nstrategy = "nfiles:8"'), "needs at least 8 ranks"),
        ("a hints file that is not one", job('backend = "mpiio"\nhints_file = "job.toml"'), "expected 'key value'"),
        ("65 hints", job('backend = "mpiio"\nhints = {' + ", ".join(f'romio_pvfs2_dtype_{i} = "x"' for i in range(65))
                         + "}"), "at most 64"),
    ]:
        extra = ["-i", "2"] if "under -i" in name else []
        argv = ["bench", "--no-probe", "--config", "job.toml"] + extra + ["-n", "2"]
        rows.append({"id": f"job: {name}", "argv": argv,
                     "files": {"job.toml": text}, "exit": 2, "says": says or "job file"})
    return rows


def all_rows() -> list[dict]:
    rows = flag_rows() + bench_rows() + job_rows() + hints_file_rows() + settings_rows() + store_rows() \
        + profile_rows() + ior_rows() + command_rows() + class_rows(_parsers(), CONTEXT) + number_rows() \
        + positional_rows()
    seen: dict[str, int] = {}
    for row in rows:  # ids name the rows in pytest's output: make them unique
        n = seen.get(row["id"], 0)
        seen[row["id"]] = n + 1
        if n:
            row["id"] += f" #{n + 1}"
    return rows


def table_text(rows: list[dict]) -> str:
    return "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: .venv/bin/python tests/python/bad_inputs.py --write")
    rows = all_rows()
    TABLE.write_text(table_text(rows))
    print(f"{len(rows)} rows written to {TABLE}")
