"""Matching a tool's findings on one corpus log to the log's truth (README.md of the corpus,
"Scoring"): which findings are true, tolerated or false, which defects were found, which fixes
are right or wrong, and the seconds claimed against the job's time. No tool is run here:
score.py runs them and hands their output in, so the matching can be tested alone."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from corpus_truth import Case, classes_of

SHOWN = ("findings", "not_costed", "minor")   # what `pario advise` prints; no_gain is "checked, not advised"
DRISHTI_NOT_FINDINGS = {"P01", "P02", "P03", "P04", "P12", "P14", "M04", "M05", "M08", "M10"}


@dataclass
class Claim:
    """One finding as the scorer sees it, whichever tool made it."""
    id: str                      # pario rule id or Drishti code
    group: str                   # pario: findings | not_costed | minor; drishti: the code's level
    kinds: list[str]
    fixes: list[str]             # fix classes
    seconds: float | None = None
    verdict: str = ""            # true | tolerated | false
    matched: list[str] = field(default_factory=list)   # defect kinds it matched
    fix: str = ""                # right | wrong | unjudged | "" (no fix to judge)


@dataclass
class LogScore:
    case: str
    log: str                     # pario | darshan
    tool: str                    # pario | drishti
    claims: list[Claim]
    visible: list[str]           # defect kinds the log can show
    found: list[str]
    job_s: float | None = None   # the job's time, read from the log
    at_stake_s: float = 0.0      # sum of the seconds the findings claim
    fixed_saving_s: float | None = None   # the fixed run's measured saving (run.json), where recorded
    matched_stake_s: float | None = None  # seconds claimed by the findings that matched a defect
    error: str = ""
    notes: list[str] = field(default_factory=list)
    advise_s: float | None = None
    costed_by: str = ""          # the calibration advise's document says it costed the findings with

    @property
    def true(self) -> int:
        return sum(c.verdict == "true" for c in self.claims)

    @property
    def false(self) -> int:
        return sum(c.verdict == "false" for c in self.claims)

    @property
    def over_time(self) -> bool:
        return self.job_s is not None and self.at_stake_s > self.job_s * (1 + 1e-9)

    @property
    def passed(self) -> bool:
        """Everything right on this log: every defect it can show found, no false finding, no wrong
        fix, the seconds within the job's time, no error, no local measurement on a foreign log."""
        return (not self.error and self.false == 0 and set(self.found) == set(self.visible)
                and not any(c.fix == "wrong" for c in self.claims) and not self.over_time
                and not any(n.startswith(("FOREIGN", "NOT THE SAME")) for n in self.notes))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.update(true=self.true, false=self.false, over_time=self.over_time, passed=self.passed)
        return d


def from_dict(d: dict[str, Any]) -> LogScore:
    """A LogScore back from score.py's results JSON."""
    fields = {k: v for k, v in d.items() if k in LogScore.__dataclass_fields__}
    fields["claims"] = [Claim(**c) for c in d["claims"]]
    return LogScore(**fields)


def judge(claims: list[Claim], case: Case, which: str) -> tuple[list[str], list[str]]:
    """Set each claim's verdict and fix judgement; return (visible kinds, found kinds)."""
    present = {d.kind: d for d in case.defects}
    visible = [d.kind for d in case.defects if which in d.visible]
    found: set[str] = set()
    for c in claims:
        hit = [k for k in c.kinds if k in present]
        if hit:
            c.verdict, c.matched = "true", hit
            found.update(hit)
            wrong = set(case.wrong_fixes).union(*(present[k].wrong for k in hit))
            right = set().union(*(present[k].right for k in hit))
        else:
            c.verdict = "tolerated" if any(k in case.tolerated for k in c.kinds) else "false"
            wrong, right = set(case.wrong_fixes), set()
        if wrong & set(c.fixes):
            c.fix = "wrong"
        elif c.verdict != "true" or not c.fixes:
            c.fix = ""   # a false or tolerated finding's fix is judged only when the case calls it wrong
        elif right & set(c.fixes):
            c.fix = "right"
        else:
            c.fix = "unjudged"
    return visible, sorted(k for k in found if k in visible)


def pario_claims(job: dict[str, Any], m: dict[str, Any]) -> tuple[list[Claim], list[str]]:
    """The shown findings of one job of `pario advise --json`, and the rule ids the mapping lacks."""
    out, unmapped = [], []
    for group in SHOWN:
        for f in job.get(group, []):
            kinds = list(m["rules"].get(f["rule"], []))
            if not kinds:
                unmapped.append(f["rule"])
            out.append(Claim(id=f["rule"], group=group, kinds=kinds, fixes=classes_of(f.get("fix") or {}, m),
                             seconds=f.get("seconds_at_stake")))
    return out, unmapped


def drishti_fixes(spec: list[str] | dict[str, list[str]], modules: set[str]) -> list[str]:
    """The fix classes Drishti prints for a code, given the log's Darshan modules."""
    if isinstance(spec, list):
        return list(spec)
    out = list(spec.get("always", []))
    out += spec.get("mpiio", []) if "MPI-IO" in modules else spec.get("no_mpiio", [])
    out += spec.get("lustre", []) if "LUSTRE" in modules else []
    return out


def drishti_claims(codes: list[str], m: dict[str, Any],
                   modules: frozenset[str] | set[str] = frozenset()) -> tuple[list[Claim], list[str]]:
    out, unmapped = [], []
    for code in codes:
        if code in DRISHTI_NOT_FINDINGS:
            continue
        kinds = list(m["drishti"].get(code, []))
        if not kinds:
            unmapped.append(code)
        out.append(Claim(id=code, group="drishti", kinds=kinds,
                         fixes=drishti_fixes(m["drishti_fixes"].get(code, []), set(modules))))
    return out, unmapped


def score_log(case: Case, which: str, tool: str, claims: list[Claim], job_s: float | None,
              unmapped: list[str] = (), error: str = "") -> LogScore:
    visible, found = judge(claims, case, which)
    s = LogScore(case=case.name, log=which, tool=tool, claims=claims, visible=visible, found=found, job_s=job_s,
                 error=error)
    s.at_stake_s = sum(c.seconds or 0.0 for c in claims)
    rec = case.recorded() or {}
    if rec.get("fixed"):
        s.fixed_saving_s = rec["fixed"]["original_median_s"] - rec["fixed"]["fixed_median_s"]
        s.matched_stake_s = sum(c.seconds or 0.0 for c in claims if c.verdict == "true")
    if unmapped:
        s.notes.append(f"not in mapping.toml (counted false): {', '.join(sorted(set(unmapped)))}")
    return s


@dataclass
class Totals:
    logs: int = 0
    errors: int = 0
    true: int = 0
    false: int = 0
    tolerated: int = 0
    visible: int = 0
    found: int = 0
    right: int = 0
    wrong: int = 0
    unjudged: int = 0
    over_time: int = 0
    passed: int = 0

    @property
    def precision(self) -> float | None:
        return self.true / (self.true + self.false) if self.true + self.false else None

    @property
    def recall(self) -> float | None:
        return self.found / self.visible if self.visible else None

    def add(self, s: LogScore) -> None:
        self.logs += 1
        self.errors += bool(s.error)
        self.true += s.true
        self.false += s.false
        self.tolerated += sum(c.verdict == "tolerated" for c in s.claims)
        self.visible += len(s.visible)
        self.found += len(s.found)
        self.right += sum(c.fix == "right" for c in s.claims)
        self.wrong += sum(c.fix == "wrong" for c in s.claims)
        self.unjudged += sum(c.fix == "unjudged" for c in s.claims)
        self.over_time += s.over_time
        self.passed += s.passed

    def to_dict(self) -> dict[str, Any]:
        return dict(asdict(self), precision=self.precision, recall=self.recall)


def totals(scores: list[LogScore]) -> Totals:
    t = Totals()
    for s in scores:
        t.add(s)
    return t
