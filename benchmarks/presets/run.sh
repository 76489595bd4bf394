#!/bin/bash
# One run of each preset on this machine, as benchmarks/presets/RESULTS.md records them: the
# command, then the table it printed (80 columns), into benchmarks/presets/out/NAME.txt.
#   N=4 benchmarks/presets/run.sh            # ranks (a preset whose ranks are fixed runs those; one that
#                                             # needs a square, csc-btio, runs the largest square <= N)
#   EXTRA="--time 120" benchmarks/presets/run.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
pario=${PARIO:-$here/../../.venv/bin/pario}
out=${OUT:-$here/out}
mkdir -p "$out"
# NAME:RANKS per preset: -n N, or the largest square <= N where the preset needs a square
list=$("$pario" bench --preset list --json | python3 -c '
import json, math, sys
n = int(sys.argv[1])
for p in json.load(sys.stdin)["presets"]:
    print(p["name"] + ":" + str(math.isqrt(n) ** 2 if p.get("ranks") == "square" else n))' "${N:-4}")
for item in $list; do
    name=${item%%:*} n=${item#*:}
    cmd="pario bench --preset $name -n $n ${EXTRA:-}"
    echo "== $cmd"
    { echo "\$ $cmd"; COLUMNS=80 "$pario" bench --preset "$name" -n "$n" ${EXTRA:-} 2>"$out/$name.err"; echo "(exit $?)"; } \
        >"$out/$name.txt"
    tail -n 1 "$out/$name.txt"
done
