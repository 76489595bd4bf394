#!/usr/bin/env bash
# A real one-node Slurm for pario's tests: slurmctld, slurmd and a private munged, all kept in
# one directory (configuration, munge key and socket, state, spool, logs, pid files), so that it
# never touches /etc/slurm, /etc/munge or a Slurm that already runs on the machine.
#
#   local-slurm.sh start  [DIR]   generate DIR/slurm.conf from this machine and start the
#                                 daemons; returns once the node is idle (nothing if already up)
#   local-slurm.sh stop   [DIR]   cancel all jobs, stop the daemons; leaves no process behind
#   local-slurm.sh status [DIR]   what runs; exit 0 only when the node answers
#   local-slurm.sh env    [DIR]   the shell lines a client needs: eval "$(local-slurm.sh env DIR)"
#
# DIR defaults to $PARIO_SLURM_DIR.  Clients find this cluster through SLURM_CONF alone (the
# munge socket is named in slurm.conf).  Settings (environment): PARIO_SLURM_PORT (slurmctld
# port; slurmd uses the next one; default: the first free pair from 6817), PARIO_SLURM_CPUS
# (announce this many CPUs instead of the real ones, e.g. 4 on a 2-core machine so that
# `srun -n 4` runs oversubscribed), PARIO_SLURM_KILLWAIT (seconds between SIGTERM and SIGKILL,
# default 5; Slurm's own default is 30), PARIO_SLURM_TIMEOUT (seconds to wait for the node, 30).
#
# Exit codes: 0 done, 1 failed (status: not running), 2 usage, 3 Slurm or MUNGE not installed.
set -euo pipefail

PATH="$PATH:/usr/sbin:/sbin"   # the daemons live in sbin, which a user's PATH may lack
ME=local-slurm
TAG=PARIO_LOCAL_SLURM          # set in the daemons' environment: finds them after a crash
MARK=.pario-local-slurm        # marks a directory as ours, so start never writes elsewhere

say() { printf '%s: %s\n' "$ME" "$*"; }
die() { printf '%s: error: %s\n' "$ME" "$1" >&2; exit "${2:-1}"; }
have() { local p; p=$(command -v "$1" 2>/dev/null) && [ -f "$p" ] && [ -x "$p" ]; }

usage() {
    echo "usage: $0 start|stop|status|env [DIR]   (DIR defaults to \$PARIO_SLURM_DIR)" >&2
    exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
CMD=$1
DIR=${2:-${PARIO_SLURM_DIR:-}}
case $CMD in start|stop|status|env) ;; *) usage ;; esac
[ -n "$DIR" ] || die "no directory: give one (local-slurm.sh $CMD DIR) or set PARIO_SLURM_DIR" 2
DIR=$(realpath -m -- "$DIR")
CONF=$DIR/slurm.conf
SOCK=$DIR/munge/munge.socket
RUN=$DIR/run

# ---- processes ------------------------------------------------------------------------------

alive() {  # alive PID: exists and is not a zombie (a killed munged can linger as <defunct>)
    local state
    [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || return 1
    state=$(awk '{sub(/.*\) /, ""); print $1}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

ours() {  # ours PID: a live process started by this script for this DIR (pid files can be stale)
    alive "$1" && grep -qzxF "$TAG=$DIR" "/proc/$1/environ" 2>/dev/null
}

pid_of() {  # pid_of NAME: the pid in NAME's pid file if that process is ours
    local pid
    pid=$(cat "$RUN/$1.pid" 2>/dev/null) || return 1
    ours "$pid" && echo "$pid"
}

stepds() {  # slurmstepd of this instance: setproctitle blanks its environment, but it keeps
    local f pid  # the slurmd log of this directory open
    for pid in $(grep -lxF slurmstepd /proc/[0-9]*/comm 2>/dev/null | tr -dc '0-9\n'); do
        for f in /proc/"$pid"/fd/*; do
            [ "$(readlink "$f" 2>/dev/null)" = "$DIR/log/slurmd.log" ] && { echo "$pid"; break; }
        done
    done
    return 0
}

tagged() {  # every live process of this instance (daemons, slurmstepd), this shell excepted
    local f pid
    while read -r f; do
        pid=${f#/proc/}; pid=${pid%/environ}
        [ "$pid" != $$ ] && alive "$pid" && echo "$pid"
    done < <(grep -lzxF "$TAG=$DIR" /proc/[0-9]*/environ 2>/dev/null)
    for pid in $(stepds); do alive "$pid" && echo "$pid"; done
    return 0
}

descendants() {  # descendants PID: its children, their children, ... (from /proc: no ps
    local f line rest pid todo=" $1 " found=1  # in a slim container)
    local -A parent=()
    for f in /proc/[0-9]*/stat; do
        read -r line <"$f" 2>/dev/null || continue
        rest=${line##*) }               # the name in parentheses may hold spaces
        rest=${rest#* }                 # drop the state; the parent's pid comes next
        pid=${f#/proc/}; parent[${pid%/stat}]=${rest%% *}
    done
    while [ $found = 1 ]; do
        found=0
        for pid in "${!parent[@]}"; do
            if [[ $todo == *" ${parent[$pid]} "* && $todo != *" $pid "* ]]; then
                todo="$todo$pid "; echo "$pid"; found=1
            fi
        done
    done
}

end_pid() {  # end_pid PID SECONDS: SIGTERM, wait, then SIGKILL
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < $2 * 10; i++)); do alive "$pid" || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do alive "$pid" || return 0; sleep 0.1; done
}

end_leftovers() {  # slurmstepd of steps that did not end (slurmctld died?) and their jobs
    local pids kids="" p i
    pids=$(tagged | grep -vxF "$(cat "$RUN/munged.pid" 2>/dev/null || echo none)" || true)
    [ -n "$pids" ] || return 0
    for p in $pids; do kids="$kids $(descendants "$p" | tr '\n' ' ')"; done
    # shellcheck disable=SC2086  # one argument per pid
    kill -TERM $pids 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do
        for p in $pids; do alive "$p" && break; done
        alive "$p" || break
        sleep 0.1
    done
    # shellcheck disable=SC2086
    kill -KILL $pids $kids 2>/dev/null || true
    sleep 0.2
}

node_state() {  # the node's state as sinfo says it, or nothing when slurmctld does not answer
    SLURM_CONF=$CONF timeout 10 sinfo -h -N -o %T 2>/dev/null | head -n1 || true
}

all_up() {
    pid_of munged >/dev/null && pid_of slurmctld >/dev/null && pid_of slurmd >/dev/null &&
        case $(node_state) in idle* | mixed* | allocated* | completing*) true ;; *) false ;; esac
}

# ---- start ----------------------------------------------------------------------------------

check_installed() {
    local t missing=() pkgs=()
    have slurmctld || { missing+=(slurmctld); pkgs+=(slurmctld); }
    have slurmd || { missing+=(slurmd); pkgs+=(slurmd); }
    for t in sinfo srun sbatch salloc squeue scontrol scancel; do
        have "$t" || { missing+=("$t"); pkgs+=(slurm-client); }
    done
    for t in munged munge unmunge; do have "$t" || { missing+=("$t"); pkgs+=(munge); }; done
    [ ${#missing[@]} -eq 0 ] && return 0
    printf '%s: error: Slurm or MUNGE is not installed (missing: %s)\n' "$ME" "${missing[*]}" >&2
    printf '%s: install them (Debian, Ubuntu) with: apt-get install -y --no-install-recommends %s\n' "$ME" \
        "$(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')" >&2
    exit 3
}

port_free() {  # nothing accepts a connection on 127.0.0.1:PORT
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_ports() {  # sets PORT (slurmctld) and PORT+1 (slurmd)
    if [ -n "${PARIO_SLURM_PORT:-}" ]; then
        PORT=$PARIO_SLURM_PORT
        [[ $PORT =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65000 ] ||
            die "PARIO_SLURM_PORT=$PORT is not a port number from 1024 to 65000"
        if ! { port_free "$PORT" && port_free $((PORT + 1)); }; then
            die "port $PORT or $((PORT + 1)) is in use (PARIO_SLURM_PORT); choose another"
        fi
        return
    fi
    for ((PORT = 6817; PORT < 7017; PORT += 2)); do
        port_free "$PORT" && port_free $((PORT + 1)) && return
    done
    die "no free pair of ports from 6817 to 7017; set PARIO_SLURM_PORT"
}

machine() {  # sets CPUS_LINE and MEM from what slurmd detects (so the node is never drained)
    local hw
    hw=$(slurmd -C 2>/dev/null | head -n1) || hw=""
    MEM=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
    [ -n "$MEM" ] || MEM=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
    if [ -n "${PARIO_SLURM_CPUS:-}" ]; then
        [[ $PARIO_SLURM_CPUS =~ ^[1-9][0-9]*$ ]] ||
            die "PARIO_SLURM_CPUS=$PARIO_SLURM_CPUS is not a positive number of CPUs"
        CPUS_LINE="CPUs=$PARIO_SLURM_CPUS"
    elif [[ $hw == *CoresPerSocket=* ]]; then
        CPUS_LINE=$(grep -oE '(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=[0-9]+' \
            <<<"$hw" | tr '\n' ' ' | sed 's/ $//')
    else
        CPUS_LINE="CPUs=$(nproc)"
    fi
}

write_conf() {
    local user node
    user=$(id -un)
    # The node is named like the host when the name is plain, so Slurm's node lists and
    # MPI_Get_processor_name agree; it is reached over loopback whatever the name resolves to.
    node=$(uname -n); node=${node%%.*}
    [[ $node =~ ^[A-Za-z][A-Za-z0-9-]{0,40}$ ]] || node=localhost
    NODE=$node
    [[ ${PARIO_SLURM_KILLWAIT:-5} =~ ^[0-9]+$ ]] ||
        die "PARIO_SLURM_KILLWAIT=$PARIO_SLURM_KILLWAIT is not a number of seconds"
    machine
    pick_ports
    : >"$DIR/plugstack.conf"   # no SPANK plugins of the machine's /etc/slurm
    cat >"$CONF.new" <<EOF
# Generated by scripts/local-slurm.sh at every start; edits are lost.
ClusterName=pario
SlurmctldHost=localhost
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
# The PMIx plugin's per-step client directory (spmix_appdir_UID_JOB.STEP) goes under TmpFS, /tmp by
# default: two of these clusters on one machine (a test run beside a CI run), or one after a cluster
# whose step was killed, number their jobs from 1 alike, and a step whose directory exists fails to
# launch ("File exists", srun: task 0 launch failed). Each cluster keeps its own.
TmpFS=$DIR/tmp
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
PlugStackConfig=$DIR/plugstack.conf
# No cgroups: the machine (a container, CI) may not delegate them.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
# Start a batch job within a second of its submission, not up to 3 s after the previous one
# (batch_sched_delay, default 3): tests submit jobs one after another.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=${PARIO_SLURM_KILLWAIT:-5}
MinJobAge=300
${PARIO_SLURM_CPUS:+SlurmdParameters=config_overrides}
NodeName=$node NodeAddr=127.0.0.1 $CPUS_LINE RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    mv "$CONF.new" "$CONF"
}

prepare_dir() {
    if [ -d "$DIR" ] && [ ! -e "$DIR/$MARK" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
        die "$DIR is not empty and was not made by local-slurm.sh; give a new or empty directory"
    fi
    # Unix socket paths are limited to 107 bytes; slurmstepd's live in the spool directory.
    [ ${#DIR} -le 64 ] || die "directory path too long for Slurm's and munge's sockets (${#DIR} > 64 characters): $DIR"
    mkdir -p "$DIR"/{munge,state,spool,log,run,tmp}
    touch "$DIR/$MARK"
    # munged needs every directory above its socket searchable by all; with --force it only
    # warns when a parent (a 0700 temporary directory) is not.
    chmod 755 "$DIR" "$DIR/munge"
    if [ ! -s "$DIR/munge/munge.key" ]; then
        if have mungekey; then
            mungekey --create --keyfile="$DIR/munge/munge.key"
        else
            dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
        fi
    fi
    chmod 400 "$DIR/munge/munge.key"
}

wait_for() {  # wait_for SECONDS COMMAND...: poll every 0.05 s
    local end=$((SECONDS + $1))
    shift
    while ! "$@"; do
        [ $SECONDS -lt $end ] || return 1
        sleep 0.05
    done
}

munge_ok() { munge -n -S "$SOCK" 2>/dev/null | unmunge -S "$SOCK" >/dev/null 2>&1; }
ctld_ok() { [[ $(SLURM_CONF=$CONF timeout 5 scontrol ping 2>/dev/null) == *"is UP"* ]]; }
node_ready() { case $(node_state) in idle* | mixed* | allocated*) true ;; *) false ;; esac; }

fail_start() {
    local f
    printf '%s: error: %s\n' "$ME" "$1" >&2
    for f in "$DIR/munge/munged.log" "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log"; do
        [ -s "$f" ] && { echo "--- last lines of $f" >&2; tail -n 8 "$f" >&2; }
    done
    do_stop >/dev/null 2>&1 || true
    exit 1
}

do_start() {
    check_installed
    if all_up; then
        say "already running in $DIR ($(grep -h '^NodeName' "$CONF" | cut -d' ' -f1))"
        return 0
    fi
    [ -z "$(tagged)" ] || do_stop >/dev/null   # half-started or crashed: begin from nothing
    prepare_dir
    write_conf
    local t0 timeout=${PARIO_SLURM_TIMEOUT:-30}
    t0=$(date +%s.%N)
    rm -f "$SOCK" "$RUN"/*.pid
    env "$TAG=$DIR" munged --force --key-file="$DIR/munge/munge.key" --socket="$SOCK" \
        --pid-file="$RUN/munged.pid" --log-file="$DIR/munge/munged.log" \
        --seed-file="$DIR/munge/munged.seed" 2>>"$DIR/munge/munged.log" ||
        fail_start "munged did not start"
    wait_for "$timeout" munge_ok || fail_start "munged does not answer on $SOCK"
    # After a crash the saved state holds jobs whose processes are gone, and slurmctld would
    # bring them back as running or requeue them; only a clean stop keeps the state (and with
    # it the job id counter).
    local clear=-c
    [ -e "$DIR/state/.clean-stop" ] && clear=""
    rm -f "$DIR/state/.clean-stop"
    env "$TAG=$DIR" SLURM_CONF="$CONF" slurmctld -f "$CONF" $clear ||
        fail_start "slurmctld did not start"
    wait_for "$timeout" ctld_ok || fail_start "slurmctld does not answer on port $PORT"
    env "$TAG=$DIR" SLURM_CONF="$CONF" slurmd -f "$CONF" -N "$NODE" ||
        fail_start "slurmd did not start"
    wait_for "$timeout" node_ready ||
        fail_start "node $NODE is not ready after ${timeout}s (state: $(node_state))"
    say "up in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s:" \
        "cluster pario, partition debug, node $NODE ($CPUS_LINE, RealMemory=$MEM)," \
        "slurmctld port $PORT"
    say "use it with: export SLURM_CONF=$CONF"
}

# ---- stop, status, env ----------------------------------------------------------------------

do_stop() {
    local pid jobs i left kw clean=""
    if [ -z "$(tagged)" ]; then
        say "not running ($DIR)"
        return 0
    fi
    if pid_of slurmctld >/dev/null && ctld_ok; then
        clean=yes
        # Steps outlive slurmd by design, so the jobs go first; the wait covers KillWait.
        jobs=$(SLURM_CONF=$CONF squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
        if [ -n "${jobs// /}" ]; then
            # shellcheck disable=SC2086  # one argument per job id
            SLURM_CONF=$CONF scancel $jobs 2>/dev/null || true
            kw=$(sed -n 's/^KillWait=//p' "$CONF" 2>/dev/null)
            for ((i = 0; i < (${kw:-30} + 15) * 10; i++)); do
                [ -z "$(SLURM_CONF=$CONF squeue -h -o %A 2>/dev/null)" ] && break
                sleep 0.1
            done
        fi
    fi
    for name in slurmd slurmctld; do
        pid=$(pid_of "$name") && end_pid "$pid" 10
    done
    # Anything but munged still running now means the jobs did not end cleanly.
    # (not `grep -q`: with pipefail, its early exit can fail the pipe)
    left=$(tagged | grep -vxF "$(cat "$RUN/munged.pid" 2>/dev/null || echo none)" || true)
    [ -z "$left" ] || clean=""
    end_leftovers
    pid=$(pid_of munged) && end_pid "$pid" 10
    left=$(tagged | tr '\n' ' ')
    [ -z "${left// /}" ] || die "processes still running after stop: $left"
    rm -f "$RUN"/*.pid "$SOCK" "$SOCK.lock" 2>/dev/null || true
    [ -z "$clean" ] || touch "$DIR/state/.clean-stop"
    say "stopped ($DIR)"
}

do_status() {
    local name pid rc=0 state
    for name in munged slurmctld slurmd; do
        if pid=$(pid_of "$name"); then
            say "$name running (pid $pid)"
        else
            say "$name not running"; rc=1
        fi
    done
    extra=$(tagged | while read -r p; do
        grep -qxF "$p" "$RUN"/*.pid 2>/dev/null || echo "$p"; done | tr '\n' ' ')
    [ -z "${extra// /}" ] || say "other processes of this instance: $extra"
    if [ -r "$CONF" ]; then
        # Without slurmctld, sinfo would take 9 s to say so.
        state=""; pid_of slurmctld >/dev/null && state=$(node_state)
        say "node: ${state:-no answer from slurmctld}"
        case $state in idle* | mixed* | allocated* | completing*) ;; *) rc=1 ;; esac
    fi
    return $rc
}

do_env() {
    [ -r "$CONF" ] || die "no $CONF: run local-slurm.sh start $DIR first"
    printf 'export SLURM_CONF=%q\nexport PARIO_SLURM_DIR=%q\n' "$CONF" "$DIR"
}

case $CMD in
    start) do_start ;;
    stop) do_stop ;;
    status) do_status ;;
    env) do_env ;;
esac
