#!/bin/bash
# A shell program of the advise corpus (benchmarks/advise/corpus): a log written a line at a time.
#   appender.sh each DIR   2,000 lines, each appended with its own redirection (open, write, close)
#   appender.sh once DIR   the same lines with the loop's output redirected once (the fix)
# Only builtins inside the loops: no process is started per line.
set -e
mode=$1 dir=$2
case $mode in
  each) for ((i = 0; i < 2000; i++)); do echo "step $i done" >> "$dir/log.txt"; done ;;
  once) for ((i = 0; i < 2000; i++)); do echo "step $i done"; done > "$dir/log.txt" ;;
  *) echo "usage: appender.sh each|once DIR" >&2; exit 2 ;;
esac
