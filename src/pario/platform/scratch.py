"""The scratch directory of a run: where it is, a prefix unique to the run, removal of only the
files this run made (the device ceiling of the directory is platform/ceiling.py)."""
from __future__ import annotations

import datetime
import glob
import os
import re
import secrets
import shutil

from pario.model.errors import ParioError

DEFAULT_NAME = "pario-scratch"


def new_run_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


class Scratch:
    """DIR (from --dir, $PARIO_SCRATCH, else ./pario-scratch), and DIR/pario.<run_id>.* for this run."""

    owns_files = True  # the run's files are its own to remove (not those of an earlier run it reads)

    def __init__(self, directory: str | None = None, run_id: str | None = None, name: str = "pario"):
        """name: the files' first part (IOR's -o PATH gives its base name); the run id always
        follows, so that two runs never share a file name (nor OMPIO's per-name semaphore)."""
        chosen = directory or os.environ.get("PARIO_SCRATCH") or os.path.join(os.getcwd(), DEFAULT_NAME)
        self.dir = os.path.abspath(os.path.expanduser(chosen))
        self.run_id = run_id or new_run_id()
        self.name = name
        self.prefix = f"{name}.{self.run_id}"
        self.created = False
        self.before: set[str] = set()  # files of the prefix there before the run: never removed
        self.rank_dirs: list[str] = []  # IOR's -u: DIR/<rank>/ this run created

    def use_existing(self) -> None:
        """IOR's -E: names without the run id (DIR/NAME.CASE.FILE), so that a later run with the
        same name finds the files; what is there before the run is never removed (prepare)."""
        self.prefix = self.name
        self.before |= set(self.leftovers())

    def prepare(self) -> None:
        """Create the directory if missing (remembering that we did) and prove it is writable. Only
        the last component is created: a mistyped parent must not leave directories behind (say
        on the root file system, where a scratch run could fill it)."""
        if os.path.exists(self.dir) and not os.path.isdir(self.dir):
            raise ParioError(f"scratch {self.dir} exists and is not a directory; give another with --dir")
        parent = os.path.dirname(self.dir)
        if not os.path.isdir(self.dir) and not os.path.isdir(parent):
            raise ParioError(f"scratch {self.dir}: its parent {parent} does not exist (pario creates only the "
                             "last component); create it or give another --dir")
        if not os.path.isdir(self.dir):
            try:
                os.mkdir(self.dir)
                self.created = True
            except OSError as exc:
                raise ParioError(f"cannot create scratch directory {self.dir}: {exc.strerror}; "
                                 "give a writable one with --dir or $PARIO_SCRATCH") from None
        self.before |= set(self.leftovers())
        probe = os.path.join(self.dir, f"{self.prefix}.writable")
        try:
            fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
            os.close(fd)
            os.unlink(probe)
        except OSError as exc:
            self.remove_dir_if_ours()
            raise ParioError(f"scratch directory {self.dir} is not writable ({exc.strerror}); "
                             "give a writable one with --dir or $PARIO_SCRATCH") from None

    def make_rank_dirs(self, ranks: int) -> None:
        """IOR's -u: DIR/0 ... DIR/<ranks-1>, those missing created (and remembered for removal)."""
        for rank in range(ranks):
            path = os.path.join(self.dir, str(rank))
            if os.path.isdir(path):
                continue
            try:
                os.mkdir(path)
            except OSError as exc:
                self.remove_dir_if_ours()
                raise ParioError(f"-u: cannot create {path}: {exc.strerror}; remove what is in the way "
                                 "or give another --dir") from None
            self.rank_dirs.append(path)

    def leftovers(self, case: int | None = None):
        """This run's files (of one case), in DIR and in the rank directories DIR/<n>/ of -u."""
        pattern = glob.escape(self.prefix) + ("." if case is None else f".{case}.") + "*"
        found = glob.glob(os.path.join(glob.escape(self.dir), pattern))
        found += [p for p in glob.glob(os.path.join(glob.escape(self.dir), "[0-9]*", pattern))
                  if os.path.basename(os.path.dirname(p)).isdigit()]
        return sorted(p for p in found if p not in self.before)

    def cleanup(self) -> int:
        """Remove DIR/pario.<run_id>.* regular files, and the run's own directories: ADIOS2 BP5
        outputs DIR/PREFIX.CASE.FILE/ and metadata trees DIR/PREFIX.CASE.md/ (without following
        symlinks); then DIR itself if we made it and it is now empty. Returns the number of
        entries removed. Never touches anything else."""
        removed = 0
        own_dir = re.compile(re.escape(self.prefix) + r"\.\d+\.(\d+|md)")
        for path in self.leftovers():
            try:
                if os.path.islink(path):
                    continue  # pario makes no symlinks: not ours
                if os.path.isfile(path):
                    os.unlink(path)
                    removed += 1
                elif os.path.isdir(path) and own_dir.fullmatch(os.path.basename(path)):
                    shutil.rmtree(path)  # unlinks symlinks inside, never descends through them
                    removed += 1
            except OSError:
                pass  # best effort: an entry that cannot be removed is reported by leftovers()
        self.remove_dir_if_ours()
        return removed

    def remove_dir_if_ours(self) -> None:
        for path in reversed(self.rank_dirs):  # -u's directories: only when empty (kept files stay)
            try:
                os.rmdir(path)
                self.rank_dirs.remove(path)
            except OSError:
                pass
        if self.created:
            try:
                os.rmdir(self.dir)  # only succeeds when empty: user files are never touched
                self.created = False
            except OSError:
                pass

    def free_bytes(self) -> int:
        try:
            st = os.statvfs(self.dir)
            return st.f_bavail * st.f_frsize
        except OSError:
            return 0
