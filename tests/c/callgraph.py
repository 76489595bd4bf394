#!/usr/bin/env python3
"""The file-level call graph of csrc/, read from the built object files with nm: fails on any
cycle between files, on a call from a lower directory into a higher one, on a global symbol that
two files define, and on a call of another file's symbol that is not pario_* (in the preload
library such a symbol is a wrapper: internal code must not re-enter the wrappers).

An edge A -> B means: A's object has an undefined (U, or weak w/v) symbol that B's object
defines, within one link unit (the objects linked into one binary). Data symbols count like
functions: a file reading another's variable depends on it as much as a call does.

    callgraph.py --nm nm --build BUILD_DIR --source SOURCE_DIR --unit NAME OBJ:OBJ:... [--unit ...]
    callgraph.py ... --expect-cycle a.c,b.c   # the self-test: succeeds only if exactly these
                                              # files form a cycle (so the check can fail)
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections import defaultdict

# Who may call whom, by directory under csrc/ (a directory may always call itself). Anything
# not listed (a new directory) must be added here: the layering is a decision, not an accident.
ALLOWED = {
    "common": set(),
    "pattern": {"common"},
    "backends": {"common", "pattern"},
    "engine": {"backends", "pattern", "common"},
    "intercept": set(),
    "profile": {"intercept"},
    "buffer": {"intercept"},
}


# Files that define libc's own names for the calls under them, transparently: the engine counts the
# bytes each rank moves at the file system by defining write, pread, close... (engine/fsbytes.c),
# which pass every call on to libc. A call of those names elsewhere is a call of libc, not of the
# file; their pario_* functions are ordinary symbols.
TRANSPARENT = {os.path.normpath("csrc/engine/fsbytes.c")}


def source_of(obj: str, build: str, source: str) -> str:
    """csrc/engine/main.c for BUILD/CMakeFiles/pario-engine.dir/csrc/engine/main.c.o and
    csrc/profile/records.c for BUILD/csrc/intercept/CMakeFiles/pario-preload.dir/__/profile/records.c.o"""
    rel = os.path.relpath(obj, build)
    head, _, rest = rel.partition("CMakeFiles" + os.sep)
    rest = rest.split(".dir" + os.sep, 1)[1]
    if rest.endswith(".o"):
        rest = rest[:-2]
    rest = rest.replace("__" + os.sep, ".." + os.sep)
    return os.path.normpath(os.path.join(head, rest))


def symbols(nm: str, obj: str) -> tuple[set[str], set[str]]:
    """(defined global symbols, undefined symbols) of one object file."""
    out = subprocess.run([nm, "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in ("U", "w", "v"):
            undefined.add(name)
        elif kind.isupper() or kind in ("u", "i"):
            defined.add(name)
    return defined, undefined


def sccs(nodes: list[str], edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                result.append(sorted(comp))
    return result


def area(path: str) -> str:
    parts = path.split(os.sep)
    return parts[1] if len(parts) > 2 and parts[0] == "csrc" else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nm", default="nm")
    ap.add_argument("--build", required=True, help="the CMake build directory the objects are in")
    ap.add_argument("--source", required=True, help="the source tree's root")
    ap.add_argument("--unit", nargs=2, action="append", metavar=("NAME", "OBJECTS"), required=True,
                    help="objects linked into one binary, separated by ':'")
    ap.add_argument("--expect-cycle", help="comma-separated files that must form the only cycle (self-test)")
    args = ap.parse_args()

    edges: dict[str, set[str]] = defaultdict(set)
    why: dict[tuple[str, str], set[str]] = defaultdict(set)
    owners: dict[str, set[str]] = defaultdict(set)  # global symbol -> files defining it (all units)
    files: set[str] = set()
    for name, objs in args.unit:
        table: dict[str, tuple[set[str], set[str]]] = {}
        for obj in filter(None, objs.split(":")):
            src = source_of(obj, args.build, args.source)
            defs, undefs = symbols(args.nm, obj)
            if src in TRANSPARENT:
                defs = {d for d in defs if d.startswith("pario_")}
            table[src] = defs, undefs
        if not table:
            print(f"callgraph: unit {name} has no object files", file=sys.stderr)
            return 2
        where = {sym: src for src, (defs, _) in table.items() for sym in defs}
        for src, (defs, undefs) in table.items():
            files.add(src)
            for sym in defs:
                owners[sym].add(src)
            for sym in undefs:
                dst = where.get(sym)
                if dst and dst != src:
                    edges[src].add(dst)
                    why[(src, dst)].add(sym)

    problems: list[str] = []
    for sym, srcs in sorted(owners.items()):
        if len(srcs) > 1:
            problems.append(f"{sym} is defined in {len(srcs)} files: {', '.join(sorted(srcs))}")
    cycles = [c for c in sccs(sorted(files), edges) if len(c) > 1]
    for comp in cycles:
        inside = [(a, b) for a in comp for b in sorted(edges[a]) if b in comp]
        lines = [f"  {a} -> {b} ({', '.join(sorted(why[(a, b)]))})" for a, b in inside]
        problems.append(f"a cycle of {len(comp)} files:\n" + "\n".join(lines))
    if args.expect_cycle:
        want = sorted(os.path.normpath(f) for f in args.expect_cycle.split(","))
        found = [c for c in cycles]
        if found == [want]:
            print(f"callgraph self-test: the cycle {' <-> '.join(want)} was found, as it must be")
            return 0
        print(f"callgraph self-test: expected the one cycle {want}, found {found}", file=sys.stderr)
        return 1
    for (a, b), syms in sorted(why.items()):
        named = sorted(s for s in syms if not s.startswith("pario_") and s != "main")
        if named:  # in the preload library these are the wrappers, meant for the program only
            problems.append(f"{a} calls {', '.join(named)} of {b} by name: internal code calls pario_* "
                            "functions (a wrapped libc call goes through PARIO_REAL or PARIO_NEXT)")
        la, lb = area(a), area(b)
        if la and lb and la != lb and lb not in ALLOWED.get(la, set()):
            problems.append(f"csrc/{la} may not call csrc/{lb}: {a} -> {b} ({', '.join(sorted(syms))})"
                            + ("" if la in ALLOWED else f" (csrc/{la} is not in ALLOWED of {__file__})"))
    nedges = sum(len(v) for v in edges.values())
    if problems:
        print(f"callgraph: {len(files)} files, {nedges} edges; {len(problems)} problem(s):", file=sys.stderr)
        for p in problems:
            print(p, file=sys.stderr)
        return 1
    print(f"callgraph: {len(files)} files, {nedges} edges, no cycle, layering respected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
