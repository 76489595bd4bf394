"""The profiler on a real parallel file system (the session's CephFS, mounted with ceph-fuse): files
are named as the program named them, also when several processes create one file at once."""
from __future__ import annotations

from profile_support import compile_c, files, preload_lib, run_profiled

ROUNDS, PROCS, KIB = 12, 4, 1024


def test_a_file_created_by_several_processes_at_once_keeps_its_name(pfs, tmp_path, tmp_path_factory):
    """Through ceph-fuse, the creators racing for one new name can leave a descriptor on a directory
    entry the kernel dropped (the file is the same): /proc/self/fd/N then reads 'shared.dat (deleted)',
    and the profiler, which named files from there, split the file into a second record under that
    name (in 9 of 12 rounds here). A file is now named by the open call's path; a copy of the
    descriptor it did not see opened (fcntl F_DUPFD) still by /proc, with the suffix checked."""
    lib = preload_lib(tmp_path_factory)
    exe = compile_c(tmp_path, "create_race", "-O2")
    work, logs = pfs.mount / tmp_path.name, tmp_path / "log"
    work.mkdir()
    proc = run_profiled(lib, [exe, work, ROUNDS, PROCS], logs)
    assert proc.returncode == 0, proc.stderr.decode()
    view = files(logs)
    posix = {path for (module, path), f in view.items() if module == "posix" and f["bytes_written"]}
    shared = {str(work / f"r{k}" / "shared.dat") for k in range(ROUNDS)}
    assert posix == shared | {str(work / "keep (deleted)")}, sorted(posix - shared)   # a real name ending so
    for path in shared:
        c = view[("posix", path)]["counters"]
        assert (c["POSIX_OPENS"], c["POSIX_BYTES_WRITTEN"], view[("posix", path)]["nprocs"]) == \
            (PROCS, 2 * PROCS * KIB, PROCS), path
    assert (work / "r0" / "shared.dat").stat().st_size == 2 * PROCS * KIB   # the data was whole all along
