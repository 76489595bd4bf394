"""Every command pario prints for a case builds the case that ran (plan.command): each flag of `pario
bench` that changes the case is run through the command and back (parsed by bench's own parser and
planned by its own plan) to the same engine case, ranks and MPI-IO layer; and each flag of `pario tune`
through tune's winner command the same way. The flags are read from the parsers, so a flag added
later is covered without a line here: a flag whose value this file cannot make up fails the first test.
(`tune -e` printed a winner command without -e: the README's cure for `cache?` measured page cache.)"""
from __future__ import annotations

import argparse
import shlex

import pytest

from pario.cli import build_parser, ior_flags
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.plan.bench import apply_drop_caches, plan
from pario.plan.command import bench_command
from pario.tune import knobs, verdict
from pario.tune.space import DEFAULT
from pario.tune.trials import apply

BASE = ["-a", "mpiio", "-w", "-n", "2"]
# what a flag needs beside it to make a case at all (tried in turn when BASE alone is refused)
COMPANIONS = [[], ["--pattern", "subarray"], ["--pattern", "btio", "-n", "4"], ["-a", "hdf5"], ["-r"],
              ["-F"], ["-D", "1"]]
METADATA_BASE = ["--metadata", "-n", "2"]
# values for flags whose row cannot say what a valid one looks like (a name, a table, a file)
SAMPLES = {"backend": ["posix", "hdf5", "pnetcdf", "netcdf4", "adios2"],
           "strategy": ["fpp", "serial", "nfiles:2", "per-node"], "hint": ["romio_cb_write=enable"],
           "lib": ["alignment=1m"], "name": ["my case"], "dims": ["4x4x2"], "grid": ["8x8x4"],
           "btio_class": ["W"], "io": ["romio321"], "reorder": ["1"], "md_ops": ["create,stat"],
           "ior_O": ["stoneWallingWearOut=1"], "drop_caches": ["files", "all"]}


def parse(command: str, *, tune: bool = False):
    """(args, every word) of a command line as pario reads it."""
    words = shlex.split(command) if isinstance(command, str) else list(command)
    env = [w for w in words if "=" in w and w.startswith("OMPI_MCA_")]
    words = words[len(env):]
    if words[:1] == ["pario"]:
        words = words[1:]
    return build_parser().parse_args(words), env


def ran(words: list[str]):
    """(the engine case, ranks, Open MPI io component) `pario bench WORDS` would run: bench's plan."""
    args, env = parse(["bench", *words])
    ior_flags.check(args)
    request = BenchRequest.from_namespace(args)
    cases, _ = plan(request, args.ranks or 1, None, 1 << 60)
    apply_drop_caches(cases, request.drop_caches, is_root=True)
    assert len(cases) == 1
    return ({k: v for k, v in cases[0].items() if not k.startswith("_") or k == "_layout"}, args.ranks, args.io,
            env)


def values_of(action: argparse.Action) -> list[str]:
    if action.dest in SAMPLES:
        return SAMPLES[action.dest]
    row = getattr(action.type, "row", None)
    if action.nargs == 0:
        return [""]
    if row is None:
        return []
    if row.choices:
        return list(row.choices)
    lo, hi = row.lo if row.lo is not None else 0, row.hi if row.hi is not None else 1 << 30
    return {"int": [str(int(min(max(lo + 1, 2), hi)))], "size": ["64k"],
            "float": [repr(min(max(lo, 1.5), hi))], "bool": [""]}.get(row.kind, [])


SPELLINGS: set[str] = set()   # every spelling of the options found to change a case


def subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]


def changing_flags(parser_name: str):
    """(flag, value, the words that make a case with it) of every option of a command that changes
    the case it runs, and the options that could not be tried at all."""
    sub = subparser(parser_name)
    md_case = ran(METADATA_BASE)
    found, untried = [], []
    for action in sub._actions:
        if not action.option_strings or action.dest in ("help", "ranks"):
            continue
        longest = action.option_strings[-1]
        flags = (action.option_strings if isinstance(action, argparse.BooleanOptionalAction)
                 else [longest if longest.startswith("--") else action.option_strings[0]])
        tried = False
        for flag in flags:
            for value in values_of(action):
                given = [flag] + ([value] if value else [])
                for base, before in [(BASE + extra, None) for extra in COMPANIONS] + [(METADATA_BASE, md_case)]:
                    try:
                        now = ran(base + given)
                        before = before or ran(base)
                    except (ParioError, SystemExit, KeyError, TypeError, ValueError):
                        continue
                    tried = True
                    if now != before:
                        found.append((flag, value, base + given))
                        SPELLINGS.update(action.option_strings)
                    break
        if not tried:
            untried.append(action.option_strings[0])
    return found, untried


BENCH_FLAGS, BENCH_UNTRIED = changing_flags("bench")


def test_every_case_flag_of_bench_is_tried():
    """The case flags (IOR's, the metadata workload's, -D -Y -u -E -T -O) all change a case here; the
    options that could not be tried are those that plan no case of their own."""
    tried = SPELLINGS
    for must in ("-e", "-k", "--odirect", "-G", "--buffer", "-W", "-R", "--no-read-check", "-C", "-Q", "-z",
                 "--hint", "--lib", "--view", "--no-view", "--aggregate", "--strategy", "-i",
                 "-s", "-t", "-b", "--name", "--dims", "--grid", "--steps", "--class", "-Y", "-D", "-u", "-E",
                 "-T", "-O", "--files-per-dir", "--file-size", "--depth", "--branching", "--per-rank-dirs",
                 "--md-ops", "--io", "--drop-caches", "-F", "-c", "--pattern", "--backend"):
        assert must in tried, (must, sorted(tried), BENCH_UNTRIED)
    assert not set(BENCH_UNTRIED) - NOT_CASES, BENCH_UNTRIED


# options of bench that take a value this file does not make up, and plan no case of their own
NOT_CASES = {"--hints-file", "--config", "--preset", "--reuse", "--db", "--dir", "-o", "--mpirun", "--sbatch-args",
             "--size", "--scale", "--suite", "--launcher", "--timeout", "--time", "--job-name", "--cache"}


@pytest.mark.parametrize("flag,value,words", BENCH_FLAGS, ids=[f"{f} {v}".strip() for f, v, _ in BENCH_FLAGS])
def test_a_bench_flag_comes_back_from_the_command(flag, value, words):
    case, ranks, io, _ = ran(words)
    command = bench_command(case, ranks, io)
    assert ran(shlex.split(command)[2:])[:3] == (case, ranks, io), command


def test_a_hints_file_comes_back_as_its_hints(tmp_path):
    path = tmp_path / "hints"
    path.write_text("romio_cb_write enable\ncb_buffer_size 4194304\n")
    case, ranks, io, _ = ran(BASE + ["--hints-file", str(path), "--hint", "cb_nodes=1"])
    command = bench_command(case, ranks, io)
    assert ran(shlex.split(command)[2:])[:3] == (case, ranks, io), command
    assert "--hint cb_buffer_size=4194304" in command


def tune_case(words: list[str]):
    """tune's base case (tune._one_case, as a session stores it) and ranks for a command line."""
    from pario.cli import tune

    args, _ = parse(["tune", *words])
    request = BenchRequest.from_namespace(args)
    request.time, request.reps = 60.0, None
    case, ranks = tune._one_case(args, request)
    return {k: v for k, v in case.items() if not k.startswith("_")}, ranks, args


def _space(case, ranks, io=None):
    stack = {"mpi": {"flavour": "openmpi", "io_components": ["ompio", "romio321"], "mpiio": "ompio"}}
    caps = ["collective", "shared", "view", "hints", "lib"]
    objective = next(op for op in case["ops"] if op in ("write", "read"))
    return knobs.build(knobs.context(case, ranks, stack, caps, objective, io))


TUNE_FLAGS = [(f, v, w) for f, v, w in BENCH_FLAGS if f in subparser("tune")._option_string_actions]


@pytest.mark.parametrize("flag,value,words", TUNE_FLAGS, ids=[f"{f} {v}".strip() for f, v, _ in TUNE_FLAGS])
def test_a_tune_flag_is_in_the_winner_command(flag, value, words):
    """The default configuration's command (what a 'default kept' session ran) and a winner that
    flips the calls and the layer: each is the base case with that configuration applied, flag for flag."""
    try:
        base, ranks, args = tune_case(words)
    except ParioError:
        pytest.skip(f"tune refuses {words} before any session")
    sp = _space(base, ranks, args.io)
    configs = [sp.default()]
    flips = {k.key: k.values[1] for k in sp.knobs if k.key in ("collective", "mca.io") and len(k.values) > 1}
    if flips:
        configs.append({**sp.default(), **flips})
    for config in configs:
        command = verdict.bench_flags(sp, base, config, ranks)
        assert shown_commands(command) == [command, command]   # the terminal's paragraph and the report's
        case, io, mca = apply(sp, base, config, base["reps"])
        back, back_ranks, back_io, _ = ran(shlex.split(command)[2:])
        assert (back, back_ranks) == ({k: v for k, v in case.items() if not k.startswith("_")}, ranks), command
        chosen = sp.effective(config).get("mca.io", DEFAULT)
        assert back_io == (args.io if chosen == DEFAULT else chosen), command


def shown_commands(command: str) -> list[str]:
    """The winner command as `pario tune` prints it (wrapped at 80 columns) and as the report's
    session section shows it, of a session whose winner is that command."""
    import io

    from pario.model.tuning import Trial, TuningSession, Winner
    from pario.report.html.page import Table
    from pario.report.html.tuning import section
    from pario.report.terminal import tune as tune_report

    w = Winner(settings={}, gain=1.5, interval=(1.2, 1.8), method="bootstrap", runs=[1, 2], verdict="faster",
               trial=1, median=600.0, default_median=400.0, bench_flags=command)
    s = TuningSession(id=1, case={"name": "c"}, objective="write", ranks=2, space={}, winner=w, status="done",
                      trials=[Trial(0, {}, "control", [400.0], runs=[1]), Trial(1, {}, "complete", [600.0], runs=[2])])
    out = io.StringIO()
    tune_report.winner(s, out)
    lines = out.getvalue().splitlines()
    at = lines.index("  as one bench command:")
    printed = []
    for line in lines[at + 1:]:
        if not line.startswith("    "):
            break
        printed.append(line.strip())
    page = next(getattr(r[1], "text", r[1]) for i in section(s).items if isinstance(i, Table) for r in i.rows
                if r[0] == "as one bench command")
    return [" ".join(printed), page]


def test_tune_fsync_reaches_the_winner_command():
    """The issue's session: `pario tune -a mpiio -c -t 1m -b 32m -n 2 -w -e`."""
    base, ranks, args = tune_case(["-a", "mpiio", "-c", "-t", "1m", "-b", "32m", "-n", "2", "-w", "-e"])
    sp = _space(base, ranks)
    command = verdict.bench_flags(sp, base, {**sp.default(), "collective": "false"}, ranks)
    assert " -e" in command and " -c" not in command and "--strategy shared" in command, command


def test_tune_nodes_reach_the_winner_command_as_the_trials_ran_them():
    """`pario tune --nodes 2`: every trial ran `--nodes 2` (trials.py), so the winner command says it and
    bench reads it back; a session inside a 2-node Slurm allocation without --nodes searched for 2 hosts,
    but its trials ran without --nodes, and so does its winner command."""
    words = ["-a", "mpiio", "-c", "-t", "1m", "-b", "4m", "-n", "4", "-w", "--nodes", "2"]
    base, ranks, args = tune_case(words)
    stack = {"mpi": {"flavour": "openmpi", "io_components": ["ompio", "romio321"], "mpiio": "ompio"},
             "slurm": {"nodes": "2"}}
    for given in (2, None):
        sp = knobs.build(knobs.context(base, ranks, stack, ["collective", "shared", "hints"], "write", None,
                                       nodes=given))
        assert sp.ctx.hosts == 2
        command = verdict.bench_flags(sp, base, sp.default(), ranks, given)   # conclude: the session's context
        bench_args, _ = parse(["bench", *shlex.split(command)[2:]])
        assert bench_args.nodes == given, command
    assert args.nodes == 2


@pytest.mark.e2e
@pytest.mark.mpi
def test_a_tune_session_s_runs_show_the_case_they_ran(tmp_path):
    """A real session with flags bench used to drop (-e, -G, --buffer, -k, --hint): each trial's stored
    command, as `pario results show` prints it and as the run's HTML page shows it, plans the case the
    engine ran (the run's spec), repetitions included; the session's winner command, where there is one,
    is the tuned case."""
    import html
    import json

    from cli_support import ENGINE, HAVE_MPIRUN, pario
    if not (ENGINE and HAVE_MPIRUN):
        pytest.skip("needs the engine and mpirun")
    flags = ["-a", "mpiio", "-c", "-t", "64k", "-b", "256k", "-n", "2", "-w", "-e", "-k", "-G", "7",
             "--buffer", "128k", "--hint", "cb_buffer_size=1048576", "--no-probe"]
    run = pario([*flags, "--trials", "4", "--json"], tmp_path, command="tune")
    assert run.returncode == 0, run.stderr
    session = json.loads(run.stdout)["session"]
    ids = [r for t in session["trials"] for r in t["runs"]]
    assert ids
    for rid in ids[:2]:
        shown = pario(["show", str(rid)], tmp_path, command="results")
        line = next(x for x in shown.stdout.splitlines() if x.startswith("command: "))
        command = line[len("command: "):]
        stored = json.loads(pario(["show", str(rid), "--json"], tmp_path, command="results").stdout)
        ran_case = {k: v for k, v in stored["spec"]["cases"][0].items() if k in ran(shlex.split(command)[2:])[0]}
        assert ran(shlex.split(command)[2:])[0] == ran_case, command
        for flag in (" -e", " -k", "-G 7", "--buffer 128k", "--hint cb_buffer_size=1048576"):
            assert flag in command, command
        page = pario(["show", str(rid), "--html", "-o", str(tmp_path / f"{rid}.html")], tmp_path, command="results")
        assert page.returncode == 0, page.stderr
        assert command in html.unescape((tmp_path / f"{rid}.html").read_text()), command
    w = session["winner"]
    if w["trial"] is not None and w["verdict"] == "faster":
        for flag in (" -e", " -k", "-G 7", "--buffer 128k", "--hint cb_buffer_size=1048576"):
            assert flag in w["bench_flags"], w["bench_flags"]
