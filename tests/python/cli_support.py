"""Running `python -m pario bench` from the tree against the engine that engine_support finds,
for the end-to-end CLI tests of the library layers and the metadata workload."""
import json
import os
import subprocess
import sys

from engine_support import ENGINE, HAVE_MPIRUN, LAYERS, ROOT, layer_built

SRC = ROOT / "src"
BUILT_LAYERS = [name for name in LAYERS if layer_built(name)]


def pario(args, tmp_path, extra_env=None, timeout=300, command="bench"):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    env["PARIO_DB"] = str(tmp_path / "runs.db")
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    env.pop("PARIO_FAULT", None)
    env["COLUMNS"] = "200"  # wide tables: the tests look for whole cells
    if ENGINE:
        env["PARIO_ENGINE"] = ENGINE
    env.update(extra_env or {})
    return subprocess.run([sys.executable, "-m", "pario", command, *args], capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=tmp_path)


def bench_json(args, tmp_path, **kw):
    """(completed process, JSON document) of `pario bench ... --json --no-probe`."""
    run = pario([*args, "--json", "--no-probe"], tmp_path, **kw)
    doc = json.loads(run.stdout) if run.stdout.strip() else None
    return run, doc


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    return json.dumps(v)


def write_job(path, cases, defaults=None):
    lines = ["[defaults]"] + [f"{k} = {toml_value(v)}" for k, v in (defaults or {}).items()]
    for c in cases:
        lines.append("\n[[case]]")
        lines += [f"{k} = {toml_value(v)}" for k, v in c.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def ours(directory):
    """Entries pario left in a scratch directory (none is the expectation)."""
    return sorted(os.listdir(directory)) if os.path.isdir(directory) else []


__all__ = ["ENGINE", "HAVE_MPIRUN", "BUILT_LAYERS", "ROOT", "pario", "bench_json", "write_job", "ours"]


def assert_rejected(args, match, tmp_path):
    """Bad input: exit 2, one line on stderr naming the problem, nothing created."""
    scratch = tmp_path / "scratch"
    run = pario([*args, "-n", "2", "--dir", str(scratch), "--no-probe"], tmp_path, timeout=60)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pario: error: ") and match in lines[0], run.stderr
    assert not scratch.exists()
