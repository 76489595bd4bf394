"""Progress inside a phase (issue 15): the engine's status files carry the bytes each rank moved so
far; the watcher sums them over the ranks and the display shows them, at 80 columns, without
flooding a log."""
from __future__ import annotations

import re

import pytest

from cli_support import ENGINE, HAVE_MPIRUN, pario
from pario.report.terminal.progress import Progress
from pario.run import inphase

CASE = {"name": "fpp-posix", "pattern": "segmented", "block": 65536, "segments": 1, "ops": ["write"]}


def _status(directory, rank, line):
    (directory / f"rank.{rank}").write_text(line.ljust(63) + "\n")


def test_status_file_with_bytes_is_parsed(tmp_path):
    _status(tmp_path, 0, "0 write 1 xfer 40960")
    _status(tmp_path, 1, "0 write 1 done 65536")
    _status(tmp_path, 2, "0 wri")                 # torn while the engine rewrote it
    _status(tmp_path, 3, "0 write 1 xfer")        # an engine without the byte count
    _status(tmp_path, 4, "1 read 0 xfer 4096")    # another phase
    assert inphase.read_status(str(tmp_path), 0) == (0, "write", 1, "xfer", 40960)
    assert inphase.read_status(str(tmp_path), 2) is None and inphase.read_status(str(tmp_path), 3) is None
    assert inphase.read_status(str(tmp_path), 9) is None
    assert inphase.phase_bytes(str(tmp_path), 5, 0, "write", 1) == (40960 + 65536, 2)
    assert inphase.phase_bytes(str(tmp_path), 5, 0, "write", 0) is None   # the previous repetition
    assert inphase.phase_bytes(str(tmp_path), 5, 0, "read", 1) is None


def test_sampler_reads_at_most_once_a_second(tmp_path):
    s = inphase.Sampler(str(tmp_path), 2, [CASE])
    _status(tmp_path, 0, "0 write 0 xfer 0")
    assert s.sample(now=5.0) is None                 # no phase open
    s.event({"event": "open", "case": 0, "op": "write", "rep": 0}, now=10.0)
    _status(tmp_path, 0, "0 write 0 xfer 32768")
    _status(tmp_path, 1, "0 write 0 xfer 16384")
    assert s.sample(now=10.5) is None                # under SAMPLE_S since the open
    ev = s.sample(now=12.0)
    assert ev is not None and ev["event"] == "bytes" and ev["bytes"] == 49152 and ev["total"] == 2 * 65536
    assert ev["rate_mib"] == pytest.approx(49152 / 2.0 / (1 << 20)) and ev["since_s"] == 2.0
    assert s.sample(now=12.5) is None
    s.event({"event": "phase", "case": 0, "op": "write"}, now=13.0)
    assert s.sample(now=20.0) is None                # the phase ended: its own line said it all
    s.event({"event": "open", "case": 0, "op": "create", "rep": 0}, now=21.0)
    assert s.sample(now=30.0) is None                # metadata phases count files, not bytes


def test_plain_display_one_line_per_few_seconds(capsys):
    p = Progress(plain=True)
    p.event({"event": "start", "steps": 12})
    p.event({"event": "phase", "name": "fpp-posix", "op": "write", "rep": 0, "step": 3, "steps": 12, "bw_mib": 10.0})
    capsys.readouterr()
    ev = {"event": "bytes", "case": 0, "name": "a-case-with-a-long-name-from-a-job-file", "op": "write", "rep": 1,
          "bytes": 3 << 30, "total": 12 << 30, "rate_mib": 1234.5, "since_s": 1.0}
    p.inphase(ev)
    assert capsys.readouterr().err == ""             # a phase shorter than PLAIN_FIRST_S shows nothing
    p.inphase({**ev, "since_s": 3.0})
    line = capsys.readouterr().err
    assert line.startswith("pario: [4/12] ") and line.count("\n") == 1 and len(line.rstrip("\n")) <= 80, line
    assert "3 GiB of 12 GiB" in line and "1234.5 MiB/s" in line and "elapsed" in line and "left" in line
    p.inphase({**ev, "since_s": 4.0})
    assert capsys.readouterr().err == ""             # no flood: at most one line per PLAIN_EVERY_S
    p.close()


@pytest.mark.mpi
@pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="the engine or mpirun is missing")
def test_a_slow_phase_shows_its_bytes(tmp_path):
    """Rank 1 hangs before its transfers (PARIO_FAULT): rank 0 writes its 64 KiB and the phase stays
    open until the watchdog ends it; meanwhile the display shows the phase's bytes so far."""
    run = pario(["-n", "2", "-F", "-t", "4k", "-b", "64k", "-i", "1", "--dir", str(tmp_path / "s"),
                 "--timeout", "6", "--no-probe"], tmp_path, {"PARIO_FAULT": "hang:1"}, timeout=120)
    assert run.returncode == 1, run.stderr
    lines = [ln for ln in run.stderr.splitlines() if re.match(r"pario: \[1/\d+\] .*write( rep 0)?: ", ln)]
    assert lines, run.stderr
    assert "64 KiB of 128 KiB" in lines[0] and all(len(ln) <= 80 for ln in lines), lines
