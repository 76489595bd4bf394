#!/usr/bin/env python3
"""How scattered in physical memory are the I/O buffers of running processes?

    python3 benchmarks/odirect/bufruns.py NAME     (as root; start it just before the launch)

While processes whose comm is NAME (pario-engine, ior, fio) live, every 0.1 s, each one's anonymous 1-2 MiB
mappings with at least 250 pages present (a 1 MiB transfer buffer) are read through /proc/PID/pagemap; at
the end it prints, per process, how many physically contiguous runs each such buffer forms in the last
sample. An O_DIRECT request of that buffer has that many scatter-gather segments.
"""
import os
import struct
import sys
import time


def pids(name):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/comm") as f:
                    if f.read().strip() == name:
                        out.append(int(p))
            except OSError:
                pass
    return out


def buffer_runs(pid):
    res = []
    with open(f"/proc/{pid}/maps") as f:
        maps = f.read().splitlines()
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for line in maps:
            f = line.split()
            a, b = (int(x, 16) for x in f[0].split("-"))
            if len(f) > 5 or not f[1].startswith("rw") or not (1 << 20) <= b - a <= (2 << 20):
                continue
            pm.seek(a // 4096 * 8)
            data = pm.read((b - a) // 4096 * 8)
            pfns = [e & ((1 << 55) - 1) for (e,) in struct.iter_unpack("Q", data) if e >> 63]
            if len(pfns) >= 250:
                res.append(sum(1 for i, x in enumerate(pfns) if i == 0 or x != pfns[i - 1] + 1))
    return res


def main():
    name, seen, t0 = sys.argv[1], {}, time.time()
    while time.time() - t0 < 60:
        ps = pids(name)
        if not ps and seen:
            break
        for pid in ps:
            try:
                res = buffer_runs(pid)
            except OSError:
                continue
            if res:
                seen[pid] = res
        time.sleep(0.1)
    print(name, "buffer runs per process:", " ".join(str(sorted(v)) for v in seen.values()))


if __name__ == "__main__":
    main()
