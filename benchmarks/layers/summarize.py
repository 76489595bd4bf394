"""Markdown tables of benchmarks/layers/run.sh's JSON outputs: each layer's write and read MiB/s
(median [min-max] over every repetition of every run) and the ratio of medians to mpiio
collective; metadata files/s per phase against files per directory."""
import glob
import json
import os
import statistics
import sys


def spread(xs):
    return f"{statistics.median(xs):.0f} [{min(xs):.0f}-{max(xs):.0f}]" if xs else "-"


def layers(out, part):
    samples, order, ranks, size = {}, [], None, None
    for path in sorted(glob.glob(os.path.join(out, f"{part}-*.json"))):
        doc = json.load(open(path))
        for c in doc["result"]["cases"]:
            if c["name"] not in samples:
                samples[c["name"]] = {"write": [], "read": []}
                order.append(c["name"])
            for p in c["phases"]:
                if p["op"] in ("write", "read"):
                    samples[c["name"]][p["op"]].append(p["bw_mib"])
            ranks, size = doc["result"]["mpi"]["ranks"], c["total_bytes"]
    if not order:
        return
    base = {op: statistics.median(samples["mpiio-coll"][op]) for op in ("write", "read")}
    how = "with fsync before close (-e; adios2 has none)" if part == "fsync" else "no sync (IOR's default)"
    print(f"Layers, {how}: {ranks} ranks, {size / 2**20:.0f} MiB per phase, "
          f"{len(samples[order[0]]['write'])} samples per cell\n")
    print("| layer | write MiB/s median [min-max] | write / mpiio coll | read MiB/s median [min-max] "
          "| read / mpiio coll |")
    print("|---|---:|---:|---:|---:|")
    for name in order:
        s = samples[name]
        ratio = {op: statistics.median(s[op]) / base[op] for op in ("write", "read")}
        print(f"| {name} | {spread(s['write'])} | {ratio['write']:.2f} | {spread(s['read'])} | {ratio['read']:.2f} |")
    print()


def metadata(out):
    rows = []
    for path in glob.glob(os.path.join(out, "md-*.json")):
        doc = json.load(open(path))
        c = doc["result"]["cases"][0]
        per = {}
        for p in c["phases"]:
            per.setdefault(p["op"], []).append(p["iops"])
        rows.append((c["spec"]["files_per_dir"], per, c["metadata"]))
    if not rows:
        return
    ops = list(rows[0][1])
    print("Metadata: files/s, median [min-max] over the repetitions; one directory shared by all ranks\n")
    print("| files per dir | " + " | ".join(ops) + " | created = removed |")
    print("|---:|" + "---:|" * len(ops) + "---|")
    for fpd, per, md in sorted(rows, key=lambda r: r[0]):
        print(f"| {fpd} | " + " | ".join(spread(per[o]) for o in ops)
              + f" | {md['created']} = {md['removed']}, left {md['left_behind']} |")
    print()


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "benchmarks/layers/out"
    layers(out, "layers")
    layers(out, "fsync")
    metadata(out)
