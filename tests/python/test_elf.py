"""Which MPI a program links, from its dynamic string table (platform/elf.py) rather than the
whole file: the answer for MPI programs of both flavours, programs without MPI, a static program,
a script and damaged files; and that only the headers and the table are read."""
from __future__ import annotations

import io
import shutil

import pytest

from pario.platform.elf import NotELF, dynamic_strings
from pario.profile.run import program_mpi
from profile_support import compile_c


@pytest.mark.parametrize("cc,expect", [("mpicc", "openmpi"), ("mpicc.mpich", "mpich"), ("cc", None)])
def test_the_mpi_a_program_links(tmp_path, cc, expect):
    exe = compile_c(tmp_path, "mpi_shared" if expect else "posix_seq", "-O2", cc=cc)
    assert program_mpi([str(exe)]) == expect


def test_no_dynamic_section_script_or_missing_file_is_none(tmp_path):
    static = compile_c(tmp_path, "posix_seq", "-static", out="static")
    script = tmp_path / "app.sh"
    script.write_text("#!/bin/sh\nexec mpirun ./app\n")
    script.chmod(0o755)
    for argv in ([str(static)], [str(script)], [str(tmp_path / "missing")], []):
        assert program_mpi(argv) is None, argv
    with open(static, "rb") as f:
        assert dynamic_strings(f) is None


def test_damaged_elf_is_refused_in_one_exception(tmp_path):
    true = shutil.which("true")
    assert true
    whole = open(true, "rb").read()
    for cut in (whole[:3], whole[:40], whole[:100], whole[:2000], b"\x7fELF" + b"\xff" * 60):
        with pytest.raises(NotELF):
            dynamic_strings(io.BytesIO(cut))
    damaged = tmp_path / "damaged"
    damaged.write_bytes(whole[:100])
    damaged.chmod(0o755)
    assert program_mpi([str(damaged)]) is None


class Counting(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.got = 0

    def read(self, size: int | None = -1) -> bytes:
        out = super().read(size)
        self.got += len(out)
        return out


def test_reads_the_headers_and_the_table_not_the_program(tmp_path):
    exe = compile_c(tmp_path, "mpi_shared", "-O2", cc="mpicc")
    padded = exe.read_bytes() + b"\0" * (8 << 20)  # as a large program's code would be
    f = Counting(padded)
    table = dynamic_strings(f)
    assert table is not None and b"libmpi.so" in table
    assert f.got < 64 << 10
