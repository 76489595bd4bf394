"""The MPI dialects of one Settings object: MPI_Info (the engine's JSON `hints`), a ROMIO_HINTS
file, Open MPI `--mca` flags and OMPI_MCA_ environment, Cray's MPICH_MPIIO_HINTS."""
from __future__ import annotations

import json
import shlex

from pario.model.errors import ParioError
from pario.model.formats import parse_json
from pario.settings.dialects.spellings import hints_of, mca_of
from pario.settings.model import Issue, Settings, build


def render_info(s: Settings, **_) -> str:
    return json.dumps(dict(sorted(hints_of(s).items())), indent=1)


def parse_info(text: str) -> tuple[Settings, list[Issue]]:
    doc = parse_json(text, "JSON hints")
    if not isinstance(doc, dict):
        raise ParioError("not a JSON object of hints (it holds a JSON " + type(doc).__name__ + ")")
    if isinstance(doc.get("hints"), dict):  # an engine case or a result's hints block
        doc = doc["hints"].get("requested", doc["hints"]) if "requested" in doc["hints"] else doc["hints"]
        if not isinstance(doc, dict):
            raise ParioError("\"hints\".\"requested\" is not a JSON object of hints")
    nested = [k for k, v in doc.items() if isinstance(v, (dict, list)) or v is None]
    issues = [Issue("error", k, f"{k}: an MPI_Info value is a string or a number, not "
                    f"{'null' if doc[k] is None else 'a ' + type(doc[k]).__name__}") for k in nested]
    settings, more = build(((str(k), str(v).lower() if isinstance(v, bool) else str(v))
                            for k, v in doc.items() if k not in nested), hints_only=True)
    return settings, issues + more


def split_words(text: str, what: str) -> list[str]:
    """shlex.split, with an unclosed quote said in one line instead of a traceback."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise ParioError(f"{what}: {exc} (a quote is not closed)") from None


def render_romio(s: Settings, **_) -> str:
    lines = ["# ROMIO hints file: export ROMIO_HINTS=/path/to/this/file",
             "# (hints the program sets with MPI_Info win over this file)"]
    lines += [f"{k} {v}" for k, v in sorted(hints_of(s).items())]
    return "\n".join(lines) + "\n"


def romio_pairs(text: str) -> list[tuple[int, str, str]]:
    """(line number, key, value) of a ROMIO hints file; a malformed line gives key '' (value: the line)."""
    out = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or "=" in parts[0]:
            out.append((lineno, "", raw.strip()))
        else:
            out.append((lineno, parts[0], parts[1].strip()))
    return out


def parse_romio(text: str) -> tuple[Settings, list[Issue]]:
    pairs = romio_pairs(text)
    bad = [Issue("error", f"line {n}", f"line {n}: expected 'key value', got {v!r}") for n, k, v in pairs if not k]
    settings, issues = build(((k, v) for _, k, v in pairs if k), hints_only=True)
    return settings, bad + issues


# ---- Open MPI ----------------------------------------------------------------------------------

def render_ompi(s: Settings, **_) -> str:
    return " ".join(f"--mca {k} {shlex.quote(v)}" for k, v in sorted(mca_of(s).items()))


def parse_ompi(text: str) -> tuple[Settings, list[Issue]]:
    words = split_words(text, "Open MPI --mca flags")
    pairs, issues, i = [], [], 0
    while i < len(words):
        if words[i] in ("--mca", "-mca", "--gmca", "-gmca") and i + 2 < len(words):
            pairs.append((f"mca.{words[i + 1]}", words[i + 2]))
            i += 3
        else:
            issues.append(Issue("error", words[i], f"'{words[i]}' is not part of --mca NAME VALUE"))
            i += 1
    settings, more = build(pairs)
    return settings, issues + more


def render_ompi_env(s: Settings, **_) -> str:
    return "".join(f"export OMPI_MCA_{k}={shlex.quote(v)}\n" for k, v in sorted(mca_of(s).items()))


def parse_ompi_env(text: str) -> tuple[Settings, list[Issue]]:
    pairs, issues = [], []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        line = line[len("export "):] if line.startswith("export ") else line
        name, sep, value = line.partition("=")
        if not sep or not name.startswith("OMPI_MCA_"):
            issues.append(Issue("error", name, f"{raw.strip()!r} is not OMPI_MCA_NAME=VALUE"))
            continue
        pairs.append((f"mca.{name[len('OMPI_MCA_'):]}", (split_words(value, name) or [""])[0]))
    settings, more = build(pairs)
    return settings, issues + more


# ---- Cray MPICH --------------------------------------------------------------------------------

def render_cray(s: Settings, pattern: str = "*", **_) -> str:
    # A value holding ':' or ',' (cb_config_list) is wrapped in #...# (anchors-tuning.md (c)).
    parts = [f"{k}=#{v}#" if (":" in v or "," in v) else f"{k}={v}" for k, v in sorted(hints_of(s).items())]
    return f"export MPICH_MPIIO_HINTS={shlex.quote(':'.join([pattern] + parts))}\n" if parts else ""


def _split_outside_hashes(text: str, sep: str) -> list[str]:
    out, cur, inside = [], "", False
    for ch in text:
        if ch == "#":
            inside = not inside
        if ch == sep and not inside:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def cray_patterns(text: str) -> dict[str, dict[str, str]]:
    """{file pattern: {key: value}} of an MPICH_MPIIO_HINTS value (or an `export` line of it)."""
    text = text.strip()
    if "MPICH_MPIIO_HINTS=" in text:
        text = text.split("MPICH_MPIIO_HINTS=", 1)[1]
    text = (split_words(text, "MPICH_MPIIO_HINTS") or [""])[0]
    out: dict[str, dict[str, str]] = {}
    for group in _split_outside_hashes(text, ","):
        fields = _split_outside_hashes(group, ":")
        pattern = fields[0] or "*"  # ARCHER2's ':key=v' means every file
        for f in fields[1:]:
            key, _, value = f.partition("=")
            out.setdefault(pattern, {})[key.strip()] = value.strip().strip("#")
    return out


def parse_cray(text: str, pattern: str = "*") -> tuple[Settings, list[Issue]]:
    groups = cray_patterns(text)
    pairs = [kv for p, kvs in groups.items() if p == pattern or pattern == "*" for kv in kvs.items()]
    return build(pairs, hints_only=True)


