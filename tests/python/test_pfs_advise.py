"""pario advise on a real parallel file system: a job whose 4 ranks write one 64 MiB file that lies in
one object of the session's CephFS (tests/advise/mpi_patterns.c shared-sync, profiled with `pario
profile`). Advise names the file, proposes the layout (stripes and object size) with the time at
stake measured on the job's own directory, and --verify runs the job's pattern there at both
layouts. Figures are not asserted beyond what the servers' caps guarantee."""
from __future__ import annotations

import pytest

from advise_support import advise, build, pario, validate
from cli_support import ENGINE, HAVE_MPIRUN
from profile_support import preload_lib

pytestmark = [pytest.mark.e2e, pytest.mark.mpi,
              pytest.mark.skipif(not (ENGINE and HAVE_MPIRUN), reason="needs the engine and mpirun")]
MIB = 1 << 20


def test_a_shared_file_on_one_server_gets_a_layout_verified_there(pfs, tmp_path, tmp_path_factory):
    lib = preload_lib(tmp_path_factory)
    exe = build(tmp_path, "mpi_patterns", "mpicc")
    work = pfs.mount / tmp_path.name
    work.mkdir()
    log = tmp_path / "job.log"
    run = pario(["profile", "-o", log, "-n", "4", "--", exe, "shared-sync", work], lib, tmp_path)
    assert run.returncode == 0, run.stderr
    doc = advise([log], tmp_path, "--verify", lib=lib)
    validate(doc)
    job = doc["jobs"][0] if "jobs" in doc else doc
    assert not (work / ".pario-advise").exists()  # the measurements' files are gone
    found = [f for f in job["findings"] if f["rule"] == "cephfs-one-server"]
    checked = [g for g in job["no_gain"] if g["rule"] == "cephfs-one-server"]
    assert found or checked, [f["rule"] for group in ("findings", "not_costed", "minor", "no_gain") for f in job[group]]
    if checked:
        # the branch a loaded machine can take: the one FUSE client on 2 shared cores, not the capped
        # servers, bound both layouts; the stance not taken is said with what was measured
        assert not found and "measured" in checked[0]["why"], checked
        return
    f = found[0]
    assert f["evidence"]["files"] == [str(work / "shared.dat")] and "lies in one object" in f["evidence"]["text"]
    assert f["fix"]["settings"] == {"ceph.stripe_count": "4", "ceph.object_size": str(4 * MIB)}
    assert f["fix"]["command"] == f'setfattr -n ceph.dir.layout -v "stripe_count=4 object_size={4 * MIB}" {work}'
    assert f["seconds_at_stake"] is not None and "took" in f["estimate"]
    check = f["verification"]
    assert check["method"] == "bench" and check["before_s"] and check["after_s"]
    if pfs.cap:  # as it is, the 64 MiB go through one capped server: never faster than that
        assert check["before_s"] >= 0.8 * 64 * MIB / pfs.cap
