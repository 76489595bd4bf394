"""A Python program of the advise corpus (benchmarks/advise/corpus): the interpreter, its
standard library and site-packages are read at start-up like any Python program's.

    python writer.py small DIR    20,000 os.write() calls of 512 B to DIR/out (unbuffered)
    python writer.py big DIR      16 MiB to DIR/out in 16 writes of 1 MiB (a buffered file)
    python writer.py joined DIR   small's bytes in one os.write() (its fix)"""
import os
import sys


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("small", "big", "joined"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, path = sys.argv[1], os.path.join(sys.argv[2], "out")
    if mode == "big":
        block = b"x" * (1 << 20)
        with open(path, "wb") as f:
            for _ in range(16):
                f.write(block)
        return 0
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    try:
        if mode == "small":
            piece = b"x" * 512
            for _ in range(20000):
                os.write(fd, piece)
        else:
            os.write(fd, b"x" * (512 * 20000))
    finally:
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
