#!/bin/bash
# kill -9 of `pario bench` in a phase, then the seconds until no process and no file of the run is
# left (scratch directory, $TMPDIR). Run from the repository after `make setup`:
#   bash benchmarks/faults/kill9.sh            (PARIO_ENGINE: the engine to use, default the venv's)
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/pario-kill9.XXXXXX")
PAT="engine $W/"run"/tmp"   # built at run time, so that pgrep does not find this script's own text
for i in 1 2 3 4 5; do
  rm -rf "$W/run" && mkdir -p "$W/run/scratch" "$W/run/tmp" && cd "$W/run"
  TMPDIR=$W/run/tmp PARIO_DB=$W/run/runs.db PARIO_FAULT=hang:1:2 \
    "$REPO/.venv/bin/python" -m pario bench -n 2 -F -t 4k -b 64k -i 3 --no-probe --dir "$W/run/scratch" >out 2>err &
  P=$!
  until grep -q "2/6" err; do sleep 0.2; done   # two phases measured; rank 1 now hangs in the third
  sleep 1
  t0=$(date +%s.%N); kill -9 $P
  while pgrep -f "$PAT" >/dev/null || [ -n "$(find tmp scratch -mindepth 1)" ]; do sleep 0.05; done
  t1=$(date +%s.%N)
  echo "run $i: nothing left after $(awk "BEGIN {print $t1 - $t0}") s"
done 2>/dev/null
rm -rf "$W"
