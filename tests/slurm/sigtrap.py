#!/usr/bin/env python3
"""Log every catchable signal this process gets, with the time since it started.

Used to see what a job's processes receive from scancel and at a time limit.
usage: sigtrap.py LOGFILE [ignore|exit]   (ignore: keep running until SIGKILL; exit: end on
SIGTERM with status 143 after logging it, like a program that saves its partial results)
"""
import os
import signal
import sys
import time

T0 = time.time()
LOG = open(sys.argv[1], "a", buffering=1)
MODE = sys.argv[2] if len(sys.argv) > 2 else "ignore"
WHO = f"pid={os.getpid()} rank={os.environ.get('SLURM_PROCID', '-')}"


def handler(sig, _frame):
    LOG.write(f"{WHO} got {signal.Signals(sig).name} at +{time.time() - T0:.2f}s\n")
    if MODE == "exit" and sig == signal.SIGTERM:
        sys.exit(128 + sig)


for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
          signal.SIGCONT, signal.SIGXCPU, signal.SIGALRM, signal.SIGQUIT):
    signal.signal(s, handler)
LOG.write(f"{WHO} started at {time.strftime('%H:%M:%S')}\n")
while True:
    time.sleep(0.1)
