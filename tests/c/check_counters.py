#!/usr/bin/env python3
"""pario-counters against the preload library built from the same header: the tool's JSON
names, kinds and merge operations are exactly what a profile log carries, module by module and
in the same order, and every counter has a one-line doc.

    check_counters.py PARIO_COUNTERS LIBPARIO_PRELOAD_SO
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile


def main() -> int:
    tool, lib = sys.argv[1], sys.argv[2]
    table = json.loads(subprocess.run([tool], check=True, capture_output=True, text=True).stdout)
    problems = []
    with tempfile.TemporaryDirectory() as logs:
        env = dict(os.environ, LD_PRELOAD=lib, PARIO_PROFILE_DIR=logs)
        env.pop("PARIO_PROFILE_DISABLE", None)
        subprocess.run(["/bin/true"], env=env, check=True)
        found = [f for f in os.listdir(logs) if f.endswith(".json")]
        if len(found) != 1:
            print(f"check_counters: expected one log from /bin/true, found {found}", file=sys.stderr)
            return 1
        with open(os.path.join(logs, found[0]), encoding="utf-8") as fh:
            log = json.load(fh)
    if (table["format"], table["version"]) != (log["format"], log["version"]):
        problems.append(f"format {table['format']}/{table['version']} != log {log['format']}/{log['version']}")
    # the I/O libraries' modules (all but the three the schema requires) are written only when
    # they hold records: /bin/true has none (tests/python/test_profile_libs.py checks them)
    kept = [m for m in table["modules"] if m in log["modules"]]
    dropped = [m for m in table["modules"] if m not in log["modules"]]
    if kept != list(log["modules"]) or set(dropped) & {"posix", "stdio", "mpiio"}:
        problems.append(f"modules {list(table['modules'])} != log {list(log['modules'])}")
    for name, mod in table["modules"].items():
        if name in dropped:
            continue
        got = log["modules"].get(name, {})
        for arr, kinds, ops in (("counters", "kinds", "ops"), ("fcounters", "fkinds", "fops")):
            rows = mod[arr]
            if [r["name"] for r in rows] != got.get(arr):
                problems.append(f"{name} {arr}: names differ from the log's")
            if [r["kind"] for r in rows] != got.get(kinds):
                problems.append(f"{name} {arr}: kinds differ from the log's")
            if [r["op"] for r in rows] != got.get(ops):
                problems.append(f"{name} {arr}: merge operations differ from the log's")
            for r in rows:
                one_line = r["doc"].strip() and "\n" not in r["doc"]
                if not one_line or r["kind"] not in table["kinds"] or r["op"] not in table["ops"]:
                    problems.append(f"{r['name']}: doc, kind or op missing or not one line: {r}")
    for p in problems:
        print("check_counters:", p, file=sys.stderr)
    n = sum(len(m["counters"]) + len(m["fcounters"]) for m in table["modules"].values())
    if not problems:
        print(f"check_counters: {n} counters in {len(table['modules'])} modules, each with a doc, as the log has them")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
