#!/bin/bash
# One run of each preset on this machine, as benchmarks/presets/RESULTS.md records them: the
# command, then the table it printed (80 columns), into benchmarks/presets/out/NAME.txt.
#   N=4 benchmarks/presets/run.sh            # ranks (csc-btio needs a square; kaust-smallwrites uses 1)
#   EXTRA="--time 120" benchmarks/presets/run.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
pario=${PARIO:-$here/../../.venv/bin/pario}
out=${OUT:-$here/out}
mkdir -p "$out"
for name in $("$pario" bench --preset list --json | python3 -c 'import json,sys; print(" ".join(p["name"] for p in json.load(sys.stdin)["presets"]))'); do
    cmd="pario bench --preset $name -n ${N:-4} ${EXTRA:-}"
    echo "== $cmd"
    { echo "\$ $cmd"; COLUMNS=80 "$pario" bench --preset "$name" -n "${N:-4}" ${EXTRA:-} 2>"$out/$name.err"; echo "(exit $?)"; } \
        >"$out/$name.txt"
    tail -n 1 "$out/$name.txt"
done
