"""What `pario buffer --stats` shows and `pario profile --buffer` keeps as the file system's view:
per file, the program's write calls against the writes the buffer made (from the stats files the
preload library writes, schemas/buffer-stats.schema.json). No I/O here."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class BufferFileStats:
    """One file, summed over the processes that wrote it."""
    path: str
    stdio: bool                 # a stream whose own buffer pario enlarged (its writes are libc's)
    size: int                   # buffer bytes it was given
    processes: int = 0
    opens: int = 0
    calls: int = 0              # the program's write calls that reached the buffer
    bytes: int = 0
    direct: int = 0             # of those, passed on unbuffered (larger than the buffer, after a stop)
    flushes: int = 0            # times the buffer was written out
    sys_writes: int = 0         # write/pwrite calls the file system saw (flushes and direct calls)
    sys_bytes: int = 0
    errors: int = 0             # deferred writes that failed
    program_time: float = 0.0   # seconds in the program's write calls
    write_time: float = 0.0     # seconds in the writes the file system saw
    flush_reasons: dict[str, int] = field(default_factory=dict)


@dataclass
class BufferStats:
    """A job's buffer statistics: its processes and its files."""
    processes: int
    partial: int                # processes stopped by a signal or in MPI_Abort
    size: int                   # the default buffer size per file
    piece: int | None = None    # a descriptor's run is written out in pieces of this size (0: when the
                                # buffer is full); None: not recorded (stats of an older pario)
    files: list[BufferFileStats] = field(default_factory=list)
