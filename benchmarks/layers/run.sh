#!/usr/bin/env bash
# The library layers against raw MPI-IO, and the metadata workload over files per directory, on
# this machine; the figures of RESULTS.md. The machine may be shared: each measurement is
# repeated (RUNS whole runs x the suite's own repetitions) and summarize.py reports medians and
# ranges over all samples.
#
#   benchmarks/layers/run.sh                 # N=4 ranks, SIZE=1g per phase, RUNS=2
#   N=4 SIZE=512m RUNS=3 PARTS="layers metadata" benchmarks/layers/run.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
PARIO=${PARIO:-.venv/bin/pario}
N=${N:-4}
SIZE=${SIZE:-1g}
RUNS=${RUNS:-2}
OUT=${OUT:-benchmarks/layers/out}
mkdir -p "$OUT"

PARTS=${PARTS:-"layers fsync metadata"}
for part in $PARTS; do
    case $part in
    layers|fsync)
        # layers: open-to-close without sync, like IOR's default: writes end in the page cache,
        # so the figures show each layer's own cost; fsync (-e): the data reaches the device
        extra=(); [ "$part" = fsync ] && extra=(-e)
        for run in $(seq 1 "$RUNS"); do
            echo "$part, run $run of $RUNS: $PARIO bench --suite layers -n $N --size $SIZE -i 3 ${extra[*]} --json" >&2
            $PARIO bench --suite layers -n "$N" --size "$SIZE" -i 3 "${extra[@]}" --json > "$OUT/$part-$run.json"
        done ;;
    metadata)
        for fpd in 500 1000 2000 5000 10000; do
            echo "metadata, $fpd files in one directory: $PARIO bench --metadata --files-per-dir $fpd" \
                "--md-ops create,stat,open_close,remove -n $N -i 5 --json" >&2
            $PARIO bench --metadata --files-per-dir "$fpd" --md-ops create,stat,open_close,remove -n "$N" -i 5 \
                --json > "$OUT/md-$fpd.json"
        done ;;
    esac
done
python3 benchmarks/layers/summarize.py "$OUT"
