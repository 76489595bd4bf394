#!/bin/bash
# alternated fresh -w -r launches, 4 ranks, O_DIRECT 1 MiB, bufruns + diskstats around each
# usage (as root): D=DIR benchmarks/odirect/alternate.sh shared|fpp ROUNDS
# (D: a scratch directory on the disk under test, vda here; the script empties it between launches)
# pario from the worktree's .venv unless PARIO is set, IOR 4.0.0 from /opt/ior4 unless IOR is set
# (IOR_ODIRECT=-B for IOR 3.2).
W=$(cd "$(dirname "$0")/../.." && pwd); D=${D:?set D to a scratch directory on the disk under test}; mkdir -p $D
P=${PARIO:-$W/.venv/bin/pario}; IOR=${IOR:-/opt/ior4/bin/ior}; ODF=${IOR_ODIRECT:---posix.odirect}  # IOR 3.2: -B
F=""; IF=""; [ "$1" = fpp ] && F="-F" && IF="-F"
ds() { awk '$3=="vda"{print $6, $10, $13}' /proc/diskstats; }  # sectors read, sectors written, io_ticks
for r in $(seq 1 $2); do
  for tool in pario ior; do
    rm -f $D/*
    if [ $tool = pario ]; then name=pario-engine; else name=ior; fi
    python3 $W/benchmarks/odirect/bufruns.py $name > ${TMPDIR:-/tmp}/odirect-bufruns.$$ &
    bp=$!
    a=$(ds); sleep 0.3
    if [ $tool = pario ]; then
      out=$($P bench -a posix $F --odirect -t 1m -b 256m -n 4 -w -r -i 1 --no-read-check --no-probe --dir $D --db ${TMPDIR:-/tmp}/odirect-alt.db 2>&1)
      bw=$(echo "$out" | grep -oE "(write|read) rep 0: [0-9.]+ MiB/s" | tr '\n' ' ')
    else
      out=$(mpirun --allow-run-as-root --oversubscribe -n 4 $IOR -a POSIX $IF $ODF -t 1m -b 256m -w -r -i 1 -o $D/ior.dat 2>&1)
      bw=$(echo "$out" | grep -E "^(write|read) +[0-9]" | head -2 | awk '{print $1, $2, "MiB/s open", $7, "wrrd", $8, "close", $9, "total", $10}' | tr '\n' '|')
    fi
    b=$(ds); wait $bp
    echo "$(date +%T) load $(cut -d' ' -f1 /proc/loadavg) $1 $tool: $bw"
    echo "   vda: $(echo $a $b | awk '{printf "read %.0f MiB, written %.0f MiB, busy %d ms", ($4-$1)/2048, ($5-$2)/2048, $6-$3}')"
    echo "   $(cat ${TMPDIR:-/tmp}/odirect-bufruns.$$)"
  done
done
rm -f $D/* ${TMPDIR:-/tmp}/odirect-bufruns.$$
