"""The package's shape, checked: data flows one way (cli -> plan -> run -> store -> analysis ->
report), so a module imports only from its own layer or a lower one, and no chain of imports
leads back to the module it starts from. Every import counts, including those inside functions.
Read with `ast` from the source tree, so nothing is imported to check it."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

# Lowest first. A module may import from its own layer and from any layer before it.
LAYERS = ("model", "settings", "platform", "plan", "run", "store", "analysis",
          "predict",   # the model of a system pario does not run on: report prints it, tune and advise use it
          "report",
          "profile",   # capability packages sit above report: profile, buffer, advise, tune (tune may
          "buffer", "advise", "tune",   # use advise, advise may use profile)
          "cli")
# The package's own top level: pario/__init__ (the version) is the bottom, pario/__main__ the top.
TOP = {"pario": 0, "pario.__main__": len(LAYERS) - 1}


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(src: Path = SRC) -> dict[str, Path]:
    return {module_name(p, src): p for p in sorted((src / "pario").rglob("*.py"))}


def _resolve(base: str, level: int, name: str | None, package: str) -> str:
    if level == 0:
        return name or ""
    parts = package.split(".")
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def imports(path: Path, name: str, known: set[str]) -> set[str]:
    """The pario modules `name` imports (`from pkg import mod` counts as importing pkg.mod)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(name, node.level, node.module, package)
            targets = [base]
            targets += [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            # `from pkg import mod` does not need pkg's own names: count pkg only when a name is not a module
            if all(f"{base}.{alias.name}" in known for alias in node.names) and base != "pario":
                targets.remove(base)
        else:
            continue
        for target in targets:
            # the longest known module that the dotted name starts with
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("pario") and target != name:
                out.add(target)
    return out


def graph(src: Path = SRC) -> dict[str, set[str]]:
    mods = modules(src)
    known = set(mods)
    return {name: imports(path, name, known) for name, path in mods.items()}


def layer_of(name: str) -> int:
    if name in TOP:
        return TOP[name]
    head = name.split(".")[1]
    if head not in LAYERS:
        raise AssertionError(f"{name}: pario.{head} is in no layer; add it to LAYERS in {__file__}")
    return LAYERS.index(head)


def upward(g: dict[str, set[str]]) -> list[str]:
    """'a imports b' for every import of a higher layer from a lower one."""
    return sorted(f"{a} ({LAYERS[layer_of(a)] if a not in TOP else a}) imports {b} ({LAYERS[layer_of(b)]})"
                  for a, targets in g.items() for b in targets if layer_of(b) > layer_of(a))


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def test_every_package_has_a_layer_and_no_module_is_left_at_the_top():
    mods = modules()
    top_level = sorted(m for m in mods if m.count(".") == 1 and not (mods[m].name == "__init__.py"))
    assert top_level == ["pario.__main__"], f"modules at the top of src/pario: {top_level}"
    for name in mods:
        layer_of(name)


def test_imports_only_go_down_the_layers():
    assert upward(graph()) == []


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_the_checks_see_a_violation(tmp_path):
    """The checker itself: a lower layer importing a higher one (inside a function) and a cycle
    are both found in a small tree written here."""
    pkg = tmp_path / "pario"
    files = {
        "__init__.py": "",
        "model/__init__.py": "",
        "model/a.py": "def f():\n    from pario.report import r\n",
        "report/__init__.py": "",
        "report/r.py": "from pario.report import s\n",
        "report/s.py": "import pario.report.r\n",
    }
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text)
    g = graph(tmp_path)
    assert g["pario.model.a"] == {"pario.report.r"}
    assert upward(g) == ["pario.model.a (model) imports pario.report.r (report)"]
    assert cycles(g) == [["pario.report.r", "pario.report.s"]]


@pytest.mark.parametrize("text,expected", [
    ("from pario.settings import knobs\n", {"pario.settings.knobs"}),
    ("from pario.settings import Settings\n", {"pario.settings"}),
    ("from pario.model.units import MIB\n", {"pario.model.units"}),
    ("import pario.model.units as u\n", {"pario.model.units"}),
    ("from .units import MIB\n", {"pario.model.units"}),
])
def test_import_forms(tmp_path, text, expected):
    for rel in ("pario/__init__.py", "pario/model/__init__.py", "pario/model/units.py",
                "pario/settings/__init__.py", "pario/settings/knobs.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    (tmp_path / "pario/model/x.py").write_text(text)
    assert graph(tmp_path)["pario.model.x"] == expected
