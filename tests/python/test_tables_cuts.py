"""README commands at 80 columns (issue 15): a command line, a compared case and the notes of a
case's second operation are shown without a cut word ("--no-" / "probe", "shared/" / "mpiio",
": warm"). The runs are real ones (tests/python/data/runs)."""
from __future__ import annotations

import copy

import pytest

from pario.analysis import compare
from pario.report.terminal import runs as run_tables
from pario.report.terminal.fit import Col, print_fit
from table_support import assert_whole, console, stored_run, text_of

# a command as `pario results` lists it: long options, a library setting, paths
COMMAND = ("pario bench -a hdf5 -c --lib alignment=1m --lib align_threshold=1m -t 64k -b 1m -n 2 "
           "--no-probe --metadata --files-per-dir 50 --per-rank-dirs --dir /tmp/cuts/s --db /tmp/cuts/r.sqlite")


@pytest.mark.parametrize("width", [80, 160])
def test_results_list_keeps_every_word_of_a_command(width):
    runs = [{**stored_run("default-suite-2ranks"), "id": k, "command": COMMAND, "headline": "summary: 1 case",
             "tags": []} for k in (1, 12)]
    con = console(width)
    run_tables.print_runs(con, runs)
    out = text_of(con)
    # every option whole (it was "--no-" / "probe", "--files-per-" / "dir", "- " / "-no-probe");
    # only paths break, after a '/'
    assert_whole(out, [COMMAND], width)
    for word in ("--no-probe", "--files-per-dir", "--per-rank-dirs", "align_threshold=1m", "alignment=1m"):
        assert word in out.split(), word


def _renamed(run: dict) -> dict:
    """The same run with other case names, so that compare names the cases by their labels."""
    b = copy.deepcopy(run)
    for c in b["result"]["cases"]:
        c["name"] += "-b"
        c["spec"]["name"] += "-b"
    return {**b, "id": 2}


@pytest.mark.parametrize("width", [80, 160])
def test_compare_keeps_case_labels_whole(width):
    a = stored_run("default-suite-2ranks")
    cmp = compare.compare_runs(a, _renamed(a))
    labels = [e["label"] for e in cmp["cases"]]
    assert any("/" in lab for lab in labels)
    con = console(width)
    run_tables.print_compare(con, cmp)
    out = text_of(con)
    assert_whole(out, labels, width)
    tokens = out.split("B faster / B slower")[0].split()
    for lab in labels:  # "shared/mpiio" is one word: never "shared/" then "mpiio"
        assert all(word in tokens for word in lab.split()), (lab, out)


def test_notes_of_a_second_operation_name_their_case_and_operation():
    """`pario bench -n 2` at 80 columns printed "  shared/posix: verified" then "  : warm"."""
    cols = [Col("case", "id"), Col("op", "id"), Col("MiB/s\nmedian [min-max]", "num", "right"),
            Col("notes", "text", aside=True)]
    rows = [["shared/posix", "write", "3093 [3063-3123]", "verified"], ["", "read", "12192 [10074-14309]", "warm"],
            ["fpp/posix", "write", "1.00 [1.00-1.00]", "cache?, " + "n" * 30]]
    con = console(60)
    print_fit(con, cols, rows)
    lines = [line.strip() for line in text_of(con).splitlines()]
    assert "shared/posix read: warm" in lines and not any(line.startswith(":") for line in lines), lines


def test_a_cell_of_two_lines_stays_aligned_when_rows_become_blocks():
    cols = [Col("case", "id"), Col("A MiB/s\nmedian [min-max]", "num", "right"),
            Col("B/A [95% interval]\nverdict", "text", "right")]
    rows = [["shared/mpiio", "1411 [564-2258]", "1.08\ntoo few repetitions"]]
    con = console(40)
    print_fit(con, cols, rows)
    lines = text_of(con).splitlines()
    k = next(i for i, line in enumerate(lines) if "verdict: 1.08" in line)
    assert lines[k + 1].strip() == "too few repetitions" and lines[k + 1].startswith(" ")
    assert all(len(line.rstrip()) <= 40 for line in lines)


def test_notes_of_rows_sharing_a_label_say_which_row():
    """`pario profile show`: one file through mpiio and posix gave two notes lines both headed
    "/tmp/cuts/shared.dat:"; each now names its interface."""
    cols = [Col("file", "path"), Col("if", "id"), Col("bytes", "num", "right"), Col("notes", "text", aside=True)]
    rows = [["/tmp/cuts/shared.dat", "mpiio", "1.0 MiB", "common sizes: 64 KiBx16 " + "n" * 60],
            ["/tmp/cuts/shared.dat", "posix", "1.0 MiB", "sequential: 75%"]]
    con = console(80)
    print_fit(con, cols, rows)
    out = text_of(con)
    assert "/tmp/cuts/shared.dat mpiio: common sizes" in out and "/tmp/cuts/shared.dat posix: sequential" in out


def test_tune_trial_lines_and_sessions_wrap_instead_of_cutting():
    """`pario tune` printed "io=romio321 cb_write=enable cb_config_l..." and `pario tune --list`
    "shared-mpiio-coll write, 1 trials: de..."; now every setting and word is whole."""
    import io

    from pario.model.tuning import Trial, TuningSession
    from pario.report.terminal import tune

    settings = {"mca.io": "romio321", "romio_cb_write": "enable", "cb_config_list": "*:2",
                "cb_buffer_size": "67108864", "mca.fcoll": "dynamic"}
    session = TuningSession(id=1, case={"name": "c"}, objective="write", ranks=2, space={}, incumbent=None)
    line = tune.trial_line(session, Trial(number=1, settings=settings, state="screened", median=2146.0, ratio=0.49))
    lines = line.splitlines()
    assert len(lines) >= 2 and all(len(x) <= 80 for x in lines) and "..." not in line
    assert set(tune.short(settings).split()) <= set(line.split())
    assert lines[1].startswith(" " * 38)  # continued under the settings column
    out = io.StringIO()
    headline = "strided-mpiio-view write, 1 trials: default 4027.1 MiB/s, no configuration faster beyond the noise"
    tune.sessions([{"id": 2, "updated": "2026-11-24T20:55:04Z", "status": "done", "headline": headline}], out)
    text = out.getvalue()
    assert all(len(x) <= 80 for x in text.splitlines()) and "..." not in text
    assert headline.split() == text.split()[text.split().index("strided-mpiio-view"):]


def test_results_jobs_shows_the_whole_command():
    """`pario results jobs` cut a command at 40 characters ("pario bench -a mpiio -c -t 1m -b 256m -n...")."""
    from pario.report.terminal.jobs import print_jobs

    command = ("/opt/venv/bin/python -m pario bench -a mpiio -c -t 1m -b 256m -n 64 --files-per-dir 50 "
               "--dir /scratch/project/run-2026")
    rec = {"id": 1, "created": "2026-11-24T20:55:04Z", "kind": "bench", "cluster": "", "job_id": "123456",
           "state": "COMPLETED", "reason": "", "exit_code": "0:0", "command": command, "run_id": 7, "session_id": None}
    con = console(80)
    print_jobs(con, [rec])
    out = text_of(con)
    shown = command.split(" -m pario ", 1)[1]
    assert_whole(out, [shown, "123456", "COMPLETED"], 80)
    assert "..." not in out and "--files-per-dir" in out.split()
    assert any(line.split()[:5] == ["1", "2026-11-24", "20:55", "bench", "123456"] for line in out.splitlines())


@pytest.mark.parametrize("width", [80, 160])
def test_backends_list_keeps_every_setting_whole(width):
    """`pario bench --list` folded "UseSelectiveMetadataAggregation" as "...Agg" / "regation" at 80
    columns. The listing is the engine's own (`pario-engine --list`)."""
    from engine_support import find_engine
    from pario.platform.engine import engine_listing
    from pario.report.terminal.backends import print_backends

    listing = engine_listing(find_engine())
    if not listing:
        pytest.skip("no engine built")
    con = console(width)
    print_backends(con, listing)
    out = text_of(con)
    keys = [k for b in listing["backends"] for k in b.get("lib_keys") or []]
    assert keys and all(k in out.replace(",", " ").split() for k in keys), out
    assert_whole(out, [b["name"] for b in listing["backends"]], width)


@pytest.mark.parametrize("width", [80, 160])
def test_settings_keys_keeps_every_key_whole(width):
    """`pario settings keys` folded "romio_no_indep_rw" as "romio_no_indep_r" / "w"."""
    from pario.report.terminal.settings import print_keys
    from pario.settings.keys import rows

    con = console(width)
    print_keys(con, rows())
    out = text_of(con)
    tokens = out.split()
    assert all(r["key"] in tokens for r in rows()), out
    assert_whole(out, [r["doc"] for r in rows()], width)


def test_metadata_notes_too_long_for_their_column_go_under_the_table():
    """`pario bench --metadata --files-per-dir 100 --file-size 300k` at 80 columns gave its notes an
    11-column column: "verified" / "87.89 MiB", "created" / "300,", a word a line."""
    from pario.analysis.summary import summarize
    from pario.report.terminal.metadata import print_metadata

    run = stored_run("metadata-2ranks")
    rows = [r for r in summarize(run["result"], run["env"]) if r.get("workload") == "metadata"]
    rows[0] = {**rows[0], "name": "md-shared-100f-300k"}
    con = console(80)
    print_metadata(con, rows)
    out = text_of(con)
    assert_whole(out, ["md-shared-100f-300k"], 80)
    md = rows[0]["metadata"]
    said = f"created {md.get('created')}, removed {md.get('removed')}"
    assert said in " ".join(out.split()), out  # the phrase together, not a word a line
    assert any(line.startswith("  md-shared-100f-300k: shared tree") for line in out.splitlines()), out
