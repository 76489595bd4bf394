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
TAGGED_ALSO=stepds             # tagged() also lists this instance's slurmstepd
# shellcheck source=lib/local-common.sh
. "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/lib/local-common.sh"   # also when run through a link

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

stepds() {  # slurmstepd of this instance: setproctitle blanks its environment, but it keeps
    local f pid  # the slurmd log of this directory open
    for pid in $(grep -lxF slurmstepd /proc/[0-9]*/comm 2>/dev/null | tr -dc '0-9\n'); do
        alive "$pid" || continue
        for f in /proc/"$pid"/fd/*; do
            [ "$(readlink "$f" 2>/dev/null)" = "$DIR/log/slurmd.log" ] && { echo "$pid"; break; }
        done
    done
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
    pid_of munged.pid >/dev/null && pid_of slurmctld.pid >/dev/null && pid_of slurmd.pid >/dev/null &&
        case $(node_state) in idle* | mixed* | allocated* | completing*) true ;; *) false ;; esac
}

# ---- start ----------------------------------------------------------------------------------

check_installed() {
    need_slurm
    missing_exit "Slurm or MUNGE" them
}

pick_ports() {  # sets PORT (slurmctld) and PORT+1 (slurmd)
    if [ -n "${PARIO_SLURM_PORT:-}" ]; then
        port_setting PARIO_SLURM_PORT 1
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
    MEM=$(mem_of "$hw")
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
    local node
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
    {
        slurm_conf_head pario
        cat <<EOF
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
EOF
        slurm_conf_policy "${PARIO_SLURM_KILLWAIT:-5}"
        cat <<EOF
${PARIO_SLURM_CPUS:+SlurmdParameters=config_overrides}
NodeName=$node NodeAddr=127.0.0.1 $CPUS_LINE RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    } >"$CONF.new"
    mv "$CONF.new" "$CONF"
}

prepare_dir() {
    check_dir_ours "" 1
    # Unix socket paths are limited to 107 bytes; slurmstepd's live in the spool directory.
    [ ${#DIR} -le 64 ] || die "directory path too long for Slurm's and munge's sockets (${#DIR} > 64 characters): $DIR"
    mkdir -p "$DIR"/{munge,state,spool,log,run,tmp}
    touch "$DIR/$MARK"
    # munged needs every directory above its socket searchable by all; with --force it only
    # warns when a parent (a 0700 temporary directory) is not.
    chmod 755 "$DIR" "$DIR/munge"
    munge_key
}

node_ready() { case $(node_state) in idle* | mixed* | allocated*) true ;; *) false ;; esac; }

fail_start() {
    start_failed "$1" 8 "$DIR/munge/munged.log" "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log"
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
    start_munged
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
    say "up in $(elapsed "$t0" 2) s:" \
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
    if pid_of slurmctld.pid >/dev/null && ctld_ok; then
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
        pid=$(pid_of "$name.pid") && end_pid "$pid" 10
    done
    # Anything but munged still running now means the jobs did not end cleanly.
    # (not `grep -q`: with pipefail, its early exit can fail the pipe)
    left=$(tagged | grep -vxF "$(cat "$RUN/munged.pid" 2>/dev/null || echo none)" || true)
    [ -z "$left" ] || clean=""
    end_leftovers
    pid=$(pid_of munged.pid) && end_pid "$pid" 10
    left=$(tagged | tr '\n' ' ')
    [ -z "${left// /}" ] || die "processes still running after stop: $left"
    rm -f "$RUN"/*.pid "$SOCK" "$SOCK.lock" 2>/dev/null || true
    [ -z "$clean" ] || touch "$DIR/state/.clean-stop"
    say "stopped ($DIR)"
}

do_status() {
    local name pid rc=0 state
    for name in munged slurmctld slurmd; do
        if pid=$(pid_of "$name.pid"); then
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
        state=""; pid_of slurmctld.pid >/dev/null && state=$(node_state)
        say "node: ${state:-no answer from slurmctld}"
        case $state in idle* | mixed* | allocated* | completing*) ;; *) rc=1 ;; esac
    fi
    return $rc
}

do_env() {
    [ -r "$CONF" ] || die "no $CONF: run local-slurm.sh start $DIR first"
    printf 'export SLURM_CONF=%q\nexport PARIO_SLURM_DIR=%q\n' "$CONF" "$DIR"
}

"do_$CMD"   # start, stop, status or env: checked above
