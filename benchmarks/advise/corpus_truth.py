"""The advise corpus as data: its cases (benchmarks/advise/corpus/CASE/truth.toml and run.json),
the mapping from findings to defect kinds and fix classes (corpus/mapping.toml), and the checks
that a truth file is well formed. Shared by make_corpus.py, score.py and the tests."""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:   # pario's own dependency on older Pythons
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).resolve().parent / "corpus"
LOGS = {"pario": "pario.log", "darshan": "darshan.darshan"}
LOG_LIMIT = 256 * 1024    # bytes: logs are committed, keep each small
NOT_PROGRAMS = {"ior", "foreign"}   # the IOR peer, and a log copied from another system


@dataclass
class Defect:
    kind: str
    what: str
    files: list[str]
    visible: list[str]
    right: list[str]
    wrong: list[str]
    why: str = ""


@dataclass
class Case:
    name: str
    dir: Path
    what: str
    run: dict[str, Any]
    logs: list[str]
    defects: list[Defect]
    tolerated: list[str]
    wrong_fixes: list[str]
    fixed: dict[str, Any] | None
    issue: str = ""
    foreign: bool = False
    raw: dict[str, Any] = field(default_factory=dict)

    def recorded(self) -> dict[str, Any] | None:
        p = self.dir / "run.json"
        return json.loads(p.read_text()) if p.exists() else None

    def log(self, which: str) -> Path:
        return self.dir / LOGS[which]


def mapping(base: Path = CORPUS) -> dict[str, Any]:
    with open(base / "mapping.toml", "rb") as f:
        return tomllib.load(f)


def _case(d: Path, raw: dict[str, Any]) -> Case:
    run = raw.get("run", {})
    logs = list(run.get("logs", ["pario", "darshan"]))
    defects = [Defect(kind=x.get("kind", ""), what=x.get("what", ""), files=list(x.get("files", [])),
                      visible=list(x.get("visible", logs)), right=list(x.get("right", [])),
                      wrong=list(x.get("wrong", [])), why=x.get("why", "")) for x in raw.get("defects", [])]
    return Case(name=d.name, dir=d, what=raw.get("what", ""), run=run, logs=logs, defects=defects,
                tolerated=list(raw.get("tolerated", {}).get("kinds", [])),
                wrong_fixes=list(raw.get("wrong_fixes", {}).get("classes", [])), fixed=raw.get("fixed"),
                issue=raw.get("issue", ""), foreign=bool(run.get("foreign", False)), raw=raw)


def load_cases(names: list[str] | None = None, base: Path = CORPUS) -> list[Case]:
    dirs = sorted(p.parent for p in base.glob("*/truth.toml"))
    if names:
        known = {d.name: d for d in dirs}
        missing = [n for n in names if n not in known]
        if missing:
            raise SystemExit(f"no corpus case {', '.join(missing)} (cases: {', '.join(known)})")
        dirs = [known[n] for n in names]
    out = []
    for d in dirs:
        with open(d / "truth.toml", "rb") as f:
            out.append(_case(d, tomllib.load(f)))
    return out


def problems(case: Case, m: dict[str, Any] | None = None, recorded: bool = True) -> list[str]:
    """What is wrong with a case's truth (and, when `recorded`, with its recorded logs)."""
    m = m or mapping()
    kinds, classes = set(m["kinds"]), set(m["fixes"])
    out: list[str] = []
    raw = case.raw
    allowed = {"what", "issue", "run", "defects", "tolerated", "wrong_fixes", "fixed"}
    out += [f"unknown key {k!r}" for k in raw if k not in allowed]
    if not case.what.strip():
        out.append("'what' (what the program does) is empty")
    prog = case.run.get("program")
    if not prog:
        out.append("[run] has no program")
    elif prog not in NOT_PROGRAMS and not (ROOT / prog).is_file():
        out.append(f"[run] program {prog} is not a file of the repository")
    if prog == "foreign":
        if not case.run.get("source"):
            out.append("a foreign log needs [run] source (where the log comes from)")
        if not case.foreign:
            out.append("a foreign log needs [run] foreign = true")
    elif not isinstance(case.run.get("args"), list) or not all(isinstance(a, str) for a in case.run["args"]):
        out.append("[run] args must be a list of strings")
    if not isinstance(case.run.get("ranks", 0), int) or case.run.get("ranks", 0) < 0:
        out.append("[run] ranks must be a whole number >= 0")
    if not case.logs or not set(case.logs) <= set(LOGS):
        out.append(f"[run] logs must be a non-empty subset of {sorted(LOGS)}")
    for i, d in enumerate(case.defects):
        where = f"defect {i + 1} ({d.kind})"
        if d.kind not in kinds:
            out.append(f"{where}: kind is not one of mapping.toml's [kinds]")
        if not d.what.strip():
            out.append(f"{where}: 'what' is empty")
        if not set(d.visible) <= set(case.logs):
            out.append(f"{where}: visible names a log the case does not record")
        if not d.right:
            out.append(f"{where}: no right fix class")
        for c in d.right + d.wrong:
            if c not in classes:
                out.append(f"{where}: fix class {c!r} is not in mapping.toml's [fixes]")
        if set(d.right) & set(d.wrong):
            out.append(f"{where}: a class is both right and wrong")
    for k in case.tolerated:
        if k not in kinds:
            out.append(f"tolerated kind {k!r} is not one of mapping.toml's [kinds]")
        if k in {d.kind for d in case.defects}:
            out.append(f"tolerated kind {k!r} is also a defect")
    if case.tolerated and not raw.get("tolerated", {}).get("why", "").strip():
        out.append("[tolerated] needs 'why'")
    for c in case.wrong_fixes:
        if c not in classes:
            out.append(f"[wrong_fixes] class {c!r} is not in mapping.toml's [fixes]")
        if any(c in d.right for d in case.defects):
            out.append(f"[wrong_fixes] class {c!r} is a right fix of a defect")
    if case.wrong_fixes and not raw.get("wrong_fixes", {}).get("why", "").strip():
        out.append("[wrong_fixes] needs 'why'")
    if case.fixed is not None and (not isinstance(case.fixed.get("args"), list) or not case.fixed.get("what")):
        out.append("[fixed] needs args (a list) and what")
    if recorded:
        out += _recorded_problems(case)
    return out


def _recorded_problems(case: Case) -> list[str]:
    rec = case.recorded()
    if rec is None:
        return ["no run.json: record the case with make_corpus.py"]
    out = []
    for which in case.logs:
        p = case.log(which)
        if which not in rec.get("logs", {}):
            out.append(f"run.json has no {which} run")
        if not p.is_file():
            out.append(f"{p.name} is missing")
        elif p.stat().st_size > LOG_LIMIT:
            out.append(f"{p.name} is {p.stat().st_size} bytes: over {LOG_LIMIT}")
    if case.fixed and "fixed" not in rec:
        out.append("the truth has a [fixed] run and run.json has none")
    return out


def classes_of(fix: dict[str, Any], m: dict[str, Any]) -> list[str]:
    """The fix classes of one pario finding's fix (mapping.toml [fixes])."""
    text = fix.get("text") or ""
    command = fix.get("command") or ""
    keys = list((fix.get("settings") or {}).keys())
    out = []
    for name, spec in m["fixes"].items():
        hit = spec.get("kind") is not None and fix.get("kind") == spec["kind"]
        hit = hit or bool(spec.get("command") and re.search(spec["command"], command, re.I))
        hit = hit or bool(spec.get("text") and re.search(spec["text"], text + " " + command, re.I))
        hit = hit or bool(spec.get("settings") and any(re.search(spec["settings"], k) for k in keys))
        if hit:
            out.append(name)
    return out
