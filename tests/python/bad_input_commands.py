"""Rows of the bad-input table (bad_inputs.py) for the commands and flags that came with advise,
buffer, the results filters and tags, completion, bench's IOR flags and -o, --dry-run, and
tune --from-log: the flag values their rows refuse come from bad_inputs.flag_rows; these are the
arguments a row cannot describe (files, run ids, patterns, combinations)."""
from __future__ import annotations

DEEP = "[" * 100000 + "]" * 100000
FILES = {"empty.txt": "", "d": {"dir": True}, "deep.json": DEEP, "bad.json": "{not json",
         "list.json": "[1, 2]", "fifo": {"fifo": True}, "x.darshan": "3.41 not a darshan log\n" * 4,
         "stats/bad.json": '{"format": "pario-buffer-stats", "version": 1, "process": {}, "files": [{"path": 5}]}',
         "deepstats/a.json": DEEP, "big.darshan": {"sparse": 5 << 30}}


def _rows(command: list[str], cases: list[tuple[list[str], int, str]]) -> list[dict]:
    return [{"id": " ".join(command + [a[:40] for a in args]), "argv": command + args, "files": FILES,
             "exit": code, "says": says} for args, code, says in cases]


def command_rows() -> list[dict]:
    rows = _rows(["advise"], [
        ([], 2, "give a log to advise on"),
        (["--no-calibrate", "/no/such.log"], 2, "no such file"),
        (["--calibrate", "--no-calibrate"], 2, "contradict each other"),
        (["--no-calibrate", "empty.txt"], 2, "empty.txt"),
        (["--no-calibrate", "deep.json"], 2, "levels deep"),
        (["--no-calibrate", "list.json"], 2, "not a pario profile log"),
        (["--no-calibrate", "fifo"], 2, "not a regular file"),
        (["--no-calibrate", "x.darshan"], 2, "the Darshan log is truncated"),
        (["--no-calibrate", "big.darshan"], 2, "5 GiB, more than the 4 GiB pario reads of such a file"),
        (["--no-calibrate", "d"], 2, "d"),
        (["--no-calibrate", "--stack", "bad.json", "list.json"], 2, "not a pario profile log"),
        (["--verify", "--no-calibrate", "list.json"], 2, "cannot go with --no-calibrate"),
    ])
    rows += _rows(["buffer"], [
        ([], 2, "nothing to run"),
        (["--size", "0", "--", "true"], 2, "argument --size: 0: the buffer needs a size"),
        (["--size", "3x", "--", "true"], 2, "argument --size: '3x' is not a size"),
        (["--size", "a\x00b", "--", "true"], 2, "control character"),
        (["--files", "", "--", "true"], 2, "give a file pattern"),
        (["--files", "*.out:bogus=1", "--", "true"], 2, "the only option is size=N"),
        (["--files", "*.out:size=3x", "--", "true"], 2, "expected a size"),
        (["--files", "a,b", "--", "true"], 2, "cannot hold ','"),
        (["--files", "a\nb", "--", "true"], 2, "control character"),
        (["show"], 2, "give the directory"),
        (["show", "empty.txt"], 2, "give the directory"),
        (["show", "d"], 2, "holds no buffer stats"),
        (["show", "stats"], 2, "stats/bad.json is not a pario buffer stats file (a file without a path)"),
        (["show", "deepstats"], 2, "levels deep"),
    ])
    rows += _rows(["profile"], [
        (["--buffer", "--buffer-size", "0", "--", "true"], 2, "argument --buffer-size: 0: the buffer needs a size"),
        (["--buffer", "--buffer-files", "", "--", "true"], 2, "argument --buffer-files"),
        (["show", "empty.txt", "--limit", "0"], 2, "argument --limit: '0' is out of range"),
        (["show", "empty.txt", "--rank", "-1"], 2, "argument --rank: '-1' is out of range"),
        (["show", "empty.txt", "--from", "nan"], 2, "argument --from: 'nan' needs a number"),
        (["show", "empty.txt", "--to", "x"], 2, "argument --to: 'x' needs a number"),
        (["show", "empty.txt", "--file", "a\x01"], 2, "control character"),
        (["show", "deep.json", "--trace"], 2, "levels deep"),
    ])
    rows += _rows(["results"], [
        (["--since", "yesterday"], 2, "--since yesterday: give a date"),
        (["--since", ""], 2, "--since needs a value"),
        (["--since", "99999999999d"], 2, "an age of at most"),
        (["--since", "2026-13-45"], 2, "give a date"),
        (["tag", "1"], 2, "missing tags (labels"),
        (["tag", "abc", "x"], 2, "run id must be a number"),
        (["tag", "1", ""], 2, "needs a value"),
        (["remove", "0"], 2, "run id must be a number"),
        (["remove", "#x"], 2, "run id must be a number"),
        (["export", "nope"], 2, "run id must be a number"),
        (["export", "1", "-o", ""], 2, "argument -o/--output: '' needs a value"),
        (["export", "1", "-o", "d"], 2, "-o d is a directory"),
        (["compare", "1", "2", "--fail-slower", "0"], 2, "between 0 and 100"),
        (["compare", "1", "2", "--fail-slower", "101"], 2, "out of range"),
        (["import", "empty.txt"], 2, "empty.txt"),
        (["import", "deep.json"], 2, "levels deep"),
        (["import", "fifo"], 2, "not a regular file"),
    ])
    rows += _rows(["completion"], [
        ([], 2, "missing shell"),
        (["fish"], 2, "argument shell: 'fish' must be one of bash, zsh"),
        (["bash", "zsh"], 2, "unrecognized arguments"),
    ])
    rows += _rows(["bench", "--no-probe"], [
        (["-F", "-o", "d"], 2, "is a directory; -o names a test file"),
        (["-F", "-o", "x", "--dir", "y"], 2, "give one"),
        (["-F", "-D", "5"], 2, "add -O stoneWallingWearOut=1"),
        (["-u"], 2, "-u (a directory per task) applies to file per process"),
        (["-a", "hdf5", "-Y"], 2, "-Y (fsync after every write) applies to -a posix and -a mpiio"),
        (["-F", "-O", "stoneWallingWearOut=1"], 2, "goes with -D SECONDS"),
        (["-F", "-O", "summaryFile=x"], 2, "summaryFile: not available"),
        (["-F", "-O", "bogus=1"], 2, "pario honours summaryFormat=JSON|CSV|default and stoneWallingWearOut"),
        (["-F", "-O", "summaryFormat=CSV"], 2, "pario results export"),
        (["--dry-run", "--preset", "list"], 2, "--dry-run with --preset list: the list runs nothing"),
        (["-F", "--drop-caches", "some"], 2, "argument --drop-caches: 'some' must be one of files, all"),
        (["-w", "-F", "--drop-caches"], 2, "no case reads"),
    ])
    rows += _rows(["tune", "-a", "mpiio", "-w", "--no-probe"], [
        (["--from-log", "/no/such.log"], 2, "/no/such.log"),
        (["--from-log", "deep.json"], 2, "levels deep"),
        (["--from-log", "list.json"], 2, "not a pario profile log"),
        (["--time", "-5m"], 2, "if its value begins with '-', write --time=VALUE"),
        (["--time=-5m"], 2, "give a duration such as"),
    ])
    rows += _rows(["predict"], [
        ([], 2, "give --system FILE"),
        (["--system", "/no/such.toml"], 2, "no such file"),
        (["--system", "d"], 2, "is a directory"),
        (["--system", "empty.txt"], 2, "needs kind"),
        (["--system", "deep.json"], 2, "not valid TOML"),
        (["--system", "fifo"], 2, "not a regular file"),
        (["--system", "archer2", "--nodes", "9000"], 2, "ARCHER2 has 5860 nodes"),
        (["--system", "mahti", "--pattern", "btio", "-a", "pnetcdf", "-c", "--nodes", "2",
          "--ranks-per-node", "3"], 2, "btio needs a square number of ranks"),
        (["--system", "archer2", "--from-log", "list.json"], 2, "not a pario profile log"),
    ])
    return rows
