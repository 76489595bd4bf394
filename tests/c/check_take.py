#!/usr/bin/env python3
"""A module that takes write() over sits between the profiler's wrapper and the real call
(csrc/intercept/README.md): run take_write_prog under libpario-preload-take.so and check that
the data reached the file, that the module saw the program's three writes, and that the
profiler still recorded them (POSIX_WRITES 3, POSIX_BYTES_WRITTEN 9 for that file).

    check_take.py LIBPARIO_PRELOAD_TAKE_SO TAKE_WRITE_PROG
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    lib, prog = sys.argv[1], sys.argv[2]
    problems = []
    with tempfile.TemporaryDirectory() as work:
        target = os.path.join(work, "data")
        logs = os.path.join(work, "logs")
        env = dict(os.environ, LD_PRELOAD=lib, PARIO_PROFILE_DIR=logs)
        env.pop("PARIO_PROFILE_DISABLE", None)
        run = subprocess.run([prog, target], env=env, capture_output=True, text=True)
        if run.returncode != 0:
            problems.append(f"the program failed ({run.returncode}): {run.stderr.strip()}")
        with open(target, "rb") as fh:
            if fh.read() != b"abcabcabc":
                problems.append("the file does not hold the three writes")
        if "take_write: 3 calls, 9 bytes (exit)" not in run.stderr:
            problems.append(f"the module did not see the three writes: {run.stderr.strip()!r}")
        found = [f for f in os.listdir(logs) if f.endswith(".json")] if os.path.isdir(logs) else []
        if len(found) != 1:
            problems.append(f"expected one profile log, found {found}")
        else:
            with open(os.path.join(logs, found[0]), encoding="utf-8") as fh:
                posix = json.load(fh)["modules"]["posix"]
            names = posix["counters"]
            recs = [r for r in posix["records"] if r["path"] == os.path.realpath(target)]
            if len(recs) != 1:
                problems.append(f"no profile record of {target}")
            else:
                got = dict(zip(names, recs[0]["c"]))
                if (got["POSIX_WRITES"], got["POSIX_BYTES_WRITTEN"]) != (3, 9):
                    problems.append(f"the profiler recorded {got['POSIX_WRITES']} writes, "
                                    f"{got['POSIX_BYTES_WRITTEN']} bytes")
    for p in problems:
        print("check_take:", p, file=sys.stderr)
    if not problems:
        print("check_take: the module took write() over, the data reached the file, the profile shows the calls")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
