"""The one validation layer (issue 16): every flag of every command and every job-file key has a
typed row, the rows' ranges are the engine's own limits, hint values are read as the MPI reads
them by every command alike, and the bounded reader refuses what it must."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import threading
from dataclasses import fields

import pytest

from engine_support import ENGINE
from pario.cli import build_parser
from pario.cli.args import Typed
from pario.cli.profile import show_parser
from pario.model.errors import ParioError
from pario.model.requests import BenchRequest
from pario.plan import inputs
from pario.plan.cases import CASE_KEYS
from pario.platform import documents
from pario.settings import hints, knobs, values
from pario.settings.catalogue import Setting
from pario.settings.check import findings
from pario.settings.equivalence import view


def _all_parsers(parser: argparse.ArgumentParser, name: str = "pario"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, p in action.choices.items():
                yield from _all_parsers(p, f"{name} {sub}")


def test_every_flag_that_takes_a_value_is_checked_by_a_typed_row():
    unchecked = []
    for name, parser in [*_all_parsers(build_parser()), ("pario profile show", show_parser())]:
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction,
                                   argparse._StoreConstAction, argparse._StoreTrueAction,
                                   argparse.BooleanOptionalAction)) or action.nargs == argparse.REMAINDER:
                continue
            if not isinstance(action.type, Typed):
                unchecked.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert not unchecked, f"flags without a typed row (cli/args.py typed/row/checked): {unchecked}"


def test_every_request_field_and_job_key_has_a_row():
    assert {f.name for f in fields(BenchRequest)} <= set(inputs.REQUEST)
    assert set(CASE_KEYS) == set(inputs.CASE)


@pytest.mark.skipif(not ENGINE, reason="needs PARIO_ENGINE")
def test_the_ranges_are_the_engines_limits():
    listed = json.loads(subprocess.run([ENGINE, "--list"], capture_output=True, text=True, check=True).stdout)
    assert knobs.LIMITS == listed["limits"]
    assert inputs.CASE["reps"].hi == listed["limits"]["int_max"]
    assert inputs.CASE["transfer"].hi == listed["limits"]["call_bytes_max"]
    assert inputs.CASE["depth"].hi == listed["limits"]["md_depth_max"]
    with pytest.raises(ParioError, match="at most 127"):
        inputs.convert(inputs.CASE["name"], "n" * (listed["limits"]["name_chars"] + 1), "--name")


# The values of issue 17's table: ROMIO reads numbers with atoi, so each command refuses what it
# would misread, with the number meant, and all agree (settings check, bench --hint, a hints file).
TRICKY = [("cb_buffer_size", "16mb", "write 16777216"), ("cb_buffer_size", "1e6", "write 1000000"),
          ("cb_nodes", "0x10", "write 16"), ("cb_nodes", " 4", None), ("cb_nodes", "-1", "from 1 to"),
          ("striping_factor", "-1", None), ("romio_cb_write", "Enable", "spelled enable"),
          ("romio_cb_write", "ENABLE", None), ("cb_nodes", "3000000000", "from 1 to 2147483647")]


@pytest.mark.parametrize("name,value,says", TRICKY)
def test_every_command_reads_a_hint_value_the_same_way(name, value, says):
    stack = view(impl="romio", fs="ext4", ranks=4, hosts=1)
    errors = [f["message"] for f in findings(f"{name} {value}\n", stack) if f["level"] == "error"]
    if says is None:
        assert hints.check(name, value) == value.strip().lower() and not errors
        return
    with pytest.raises(ParioError, match=says):
        hints.check(name, value)
    assert errors and says in errors[0]


def test_values_by_kind():
    size = Setting("s", "size", lo=1)
    assert values.parse(size, "16m") == (16 << 20, None)
    assert values.parse(size, 4096) == (4096, None)
    assert values.parse(size, True)[1] and values.parse(size, 2.5)[1] and values.parse(size, "1e6")[1]
    number = Setting("f", "float", lo=0)
    assert values.parse(number, "nan")[1] and values.parse(number, float("inf"))[1]
    flag = Setting("b", "bool")
    assert values.parse(flag, "on") == (True, None) and values.parse(flag, "maybe")[1]
    assert "control character" in values.parse(Setting("n", "str"), "a\x00b")[1]


def test_the_reader_refuses_what_it_must(tmp_path):
    with pytest.raises(ParioError, match="not a regular file"):
        documents.read_text("/dev/zero", "test file")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done: list[str] = []
    worker = threading.Thread(target=lambda: done.append(_refusal(fifo)), daemon=True)
    worker.start()
    worker.join(10)
    assert done and "not a regular file" in done[0], "a FIFO must be refused, not opened (it would block)"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(ParioError, match="levels deep"):
        documents.load_json(deep, "test document")
    with pytest.raises(ParioError, match="DOCTYPE"):
        documents.parse_xml("<!DOCTYPE a [<!ENTITY b 'c'>]><a>&b;</a>", "test xml")
    assert documents.depth({"a": [1, [2, {"b": 3}]]}) == 4
    with pytest.raises(ParioError, match=r"tests\[0\]\.Results is an integer \(5\), expected array"):
        documents.validate({"tests": [{"Results": 5}]}, "ior-summary", "test")


def _refusal(path) -> str:
    try:
        documents.read_text(path, "test file")
    except ParioError as exc:
        return str(exc)
    return "read"
