#!/usr/bin/env bash
# A cluster of N real nodes on one machine (root): each node is its own UTS + mount namespace
# (hostname nodeK, its own /tmp, /dev/shm and /etc/hosts) sharing the machine's loopback network,
# with its own `slurmd -N nodeK`; one slurmctld and a private munged serve them. Everything is
# kept in one directory (configuration, munge key and socket, state, spool, logs, pid files), so
# it never touches /etc/slurm, /etc/munge, another Slurm on the machine or a process it did not
# start. Recipe and traps: ../shared/reference/machine-notes.md ("Several nodes on one machine").
#
#   local-cluster.sh start N [DIR]     N nodes (1-16), returns once every node is idle
#   local-cluster.sh stop [DIR]        cancel the jobs, end every process of the nodes, the daemons
#                                      and the namespaces; also after a failed or killed start
#   local-cluster.sh status [DIR]      what runs; exit 0 only when every node answers
#   local-cluster.sh env [DIR]         the shell lines a client needs: eval "$(local-cluster.sh env)"
#   local-cluster.sh exec NODE CMD...  run CMD on NODE (in its namespaces, this directory kept)
#   start and stop also end, and say, what a killed run in another directory left: its processes
#   (and what runs in its nodes) once that directory lost its mark; never a live cluster's.
#
# DIR defaults to $PARIO_CLUSTER_DIR, else /tmp/pario-cluster. Without Slurm, DIR/bin/ssh is an
# ssh stand-in (it enters the node) for `mpirun --mca plm_rsh_agent DIR/bin/ssh --host node1:2,...`
# and MPICH's `mpiexec -launcher ssh -launcher-exec DIR/bin/ssh -hosts node1:2,...`; `env` sets
# both MPIs up to use it with DIR/hostfile (Open MPI) and DIR/hostfile.hydra (MPICH).
#
# A node's /tmp is its own (a file there is invisible to the other nodes, as on a cluster); the
# rest of the machine's file system is shared by all. Paths under /tmp that every node must see
# are named in PARIO_CLUSTER_SHARE (colon-separated); DIR, the tree this script is in (a clone
# under /tmp) and the directory start runs in are always shared. Settings (environment): PARIO_CLUSTER_PORT (slurmctld's port; node K's slurmd
# uses PORT+K; default: the first free block from 17017), PARIO_CLUSTER_CPUS (CPUs each node
# announces, default 4, so that 2 cores run -n 4 per node oversubscribed), PARIO_CLUSTER_TIMEOUT
# (seconds to wait for each daemon, 30), PARIO_CLUSTER_KILLWAIT (SIGTERM to SIGKILL, 5 s).
#
# Exit codes: 0 done, 1 failed (status: not running), 2 usage, 3 Slurm, MUNGE or util-linux not
# installed, 4 this machine cannot (not root, or no mount/UTS namespaces).
set -euo pipefail

PATH="$PATH:/usr/sbin:/sbin"
ME=local-cluster
TAG=PARIO_LOCAL_CLUSTER        # in the environment of every daemon and anchor: finds them after a crash
MARK=.pario-local-cluster      # marks a directory as ours, so start never writes elsewhere
MAX_NODES=16
GONE=99        # what a wait_for condition returns when waiting longer cannot help
# shellcheck source=lib/local-common.sh
. "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/lib/local-common.sh"   # also when run through a link

usage() {
    cat >&2 <<EOF
usage: $0 start N [DIR] | stop [DIR] | status [DIR] | env [DIR] | exec NODE CMD...
  (DIR defaults to \$PARIO_CLUSTER_DIR, else /tmp/pario-cluster)
EOF
    exit 2
}

[ $# -ge 1 ] || usage
CMD=$1; shift
N=""
case $CMD in
    start) [ $# -ge 1 ] && [ $# -le 2 ] || usage; N=$1; shift ;;
    stop | status | env) [ $# -le 1 ] || usage ;;
    exec) [ $# -ge 2 ] || usage ;;
    *) usage ;;
esac
if [ "$CMD" = exec ]; then DIR=${PARIO_CLUSTER_DIR:-/tmp/pario-cluster}; else
    DIR=${1:-${PARIO_CLUSTER_DIR:-/tmp/pario-cluster}}; fi
DIR=$(realpath -m -- "$DIR")
CONF=$DIR/slurm.conf
SOCK=$DIR/munge/munge.socket
RUN=$DIR/run
HOST_MNT=$(readlink /proc/self/ns/mnt)

# ---- processes ------------------------------------------------------------------------------

node_namespaces() {  # the mount namespaces of this cluster's nodes: recorded, and those of its tagged
    local f p ns     # processes (an anchor whose start was cut short), never the machine's own
    {
        for f in "$RUN"/node*.ns; do [ -r "$f" ] && head -n1 "$f"; done
        for p in $(tagged); do readlink "/proc/$p/ns/mnt" 2>/dev/null; done
    } 2>/dev/null | grep -vxF "$HOST_MNT" | sort -u || true
}

in_nodes() {  # every live process inside one of NAMESPACES (a newline-separated list); one pass
    local pid  # over /proc (a grep or readlink per process takes seconds on a loaded machine)
    [ -n "$1" ] || return 0
    find /proc/[0-9]*/ns/mnt -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
        awk -v want="$1" -v me=$$ 'BEGIN {n = split(want, w, "\n"); for (i = 1; i <= n; i++) ok[w[i]] = 1}
            ($2 in ok) {split($1, p, "/"); if (p[3] != me) print p[3]}' |
        while read -r pid; do alive "$pid" && echo "$pid"; done
    return 0
}

end_all() {  # end_all SECONDS PID...: SIGTERM to all, wait, SIGKILL to what is left
    local wait=$1 p i left
    shift
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    for ((i = 0; i < wait * 10; i++)); do
        left=""; for p in "$@"; do alive "$p" && left=1; done
        [ -n "$left" ] || return 0
        sleep 0.1
    done
    kill -KILL "$@" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        left=""; for p in "$@"; do alive "$p" && left=1; done
        [ -n "$left" ] || return 0
        sleep 0.1
    done
}

reclaim() {  # the processes of a killed run in another directory whose mark is gone, and what still
    local spaces  # runs inside its nodes' namespaces (steps, ranks), said as they are ended
    spaces=$(abandoned | while read -r p _; do readlink "/proc/$p/ns/mnt" 2>/dev/null; done |
             grep -vxF "$HOST_MNT" | sort -u || true)
    # shellcheck disable=SC2046  # one argument per pid
    end_abandoned $(in_nodes "$spaces")
}

# ---- start ----------------------------------------------------------------------------------

check_installed() {
    local t
    need_slurm
    for t in unshare nsenter setsid; do need "$t" util-linux; done
    missing_exit "Slurm, MUNGE or util-linux" them
}

check_able() {  # root, and the kernel gives this process new mount and UTS namespaces
    [ "$(id -u)" = 0 ] || die "several nodes on one machine need root (a mount and a UTS namespace per node, \
slurmd as root); run as root, or use scripts/local-slurm.sh for one node" 4
    unshare --uts --mount --propagation private -- true 2>/dev/null ||
        die "this machine gives no new mount and UTS namespaces (unshare --uts --mount failed: a container \
without CAP_SYS_ADMIN?); several nodes cannot be made here" 4
}

block_free() {  # block_free PORT: PORT (slurmctld) and PORT+1..PORT+N (the slurmds) are free
    local k
    for ((k = 0; k <= N; k++)); do port_free $(($1 + k)) || return 1; done
}

pick_ports() {  # 17017 and up: outside local-slurm.sh's 6817-7017, Ceph's 6789 and 6800-7300, and
    if [ -n "${PARIO_CLUSTER_PORT:-}" ]; then  # the kernel's ephemeral ports (32768 and up)
        port_setting PARIO_CLUSTER_PORT 2
        block_free "$PORT" || die "a port from $PORT to $((PORT + N)) is in use (PARIO_CLUSTER_PORT); choose another"
        return
    fi
    for ((PORT = 17017; PORT < 17017 + 32 * 40; PORT += 32)); do
        block_free "$PORT" && return
    done
    die "no free block of $((N + 1)) ports from 17017 to $((17017 + 32 * 40)); set PARIO_CLUSTER_PORT"
}

node_ip() { echo "127.0.0.$((10 + $1))"; }

write_files() {
    local k cpus mem hostname_
    cpus=${PARIO_CLUSTER_CPUS:-4}
    [[ $cpus =~ ^[1-9][0-9]*$ ]] || die "PARIO_CLUSTER_CPUS=$cpus is not a positive number of CPUs" 2
    [[ ${PARIO_CLUSTER_KILLWAIT:-5} =~ ^[0-9]+$ ]] ||
        die "PARIO_CLUSTER_KILLWAIT=$PARIO_CLUSTER_KILLWAIT is not a number of seconds" 2
    mem=$(mem_of "$(slurmd -C 2>/dev/null | head -n1)")
    hostname_=$(uname -n)
    CPUS=$cpus
    pick_ports
    {
        echo "# the hosts file of every node of the local cluster in $DIR (generated at start)"
        echo "127.0.0.1 localhost $hostname_"
        for ((k = 1; k <= N; k++)); do echo "$(node_ip "$k") node$k"; done
    } >"$DIR/hosts"
    for ((k = 1; k <= N; k++)); do echo "node$k slots=$cpus"; done >"$DIR/hostfile"
    for ((k = 1; k <= N; k++)); do echo "node$k:$cpus"; done >"$DIR/hostfile.hydra"
    : >"$DIR/plugstack.conf"
    # Slurm 22.05's PMIx plugin connects the nodes' step daemons directly by default; here 5 of 30
    # Open MPI launches over 3 nodes (srun --mpi=pmix) then lost a rank at start (SIGSEGV in MPI_Init),
    # none of 30 through slurmd's own messages (read from mpi.conf beside slurm.conf)
    printf '# generated by scripts/local-cluster.sh\nPMIxDirectConn=false\n' >"$DIR/mpi.conf"
    {
        slurm_conf_head pario-nodes
        cat <<EOF
SlurmdSpoolDir=$DIR/spool/%n
# each node's own /tmp (a tmpfs of its mount namespace): the PMIx plugin's step directories of two
# clusters, or two nodes, never meet
TmpFS=/tmp
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldPort=$PORT
EOF
        slurm_conf_policy "${PARIO_CLUSTER_KILLWAIT:-5}"
        cat <<EOF
# every node announces $cpus CPUs on a machine that has $(nproc): oversubscribed on purpose
SlurmdParameters=config_overrides
EOF
        for ((k = 1; k <= N; k++)); do
            echo "NodeName=node$k NodeAddr=$(node_ip "$k") NodeHostname=node$k Port=$((PORT + k))" \
                "CPUs=$cpus RealMemory=$mem State=UNKNOWN"
        done
        echo "PartitionName=debug Nodes=node[1-$N] Default=YES MaxTime=INFINITE State=UP"
    } >"$CONF.new"
    mv "$CONF.new" "$CONF"
    write_node_init
    write_ssh
}

write_node_init() {  # the anchor of one node: its namespaces' set-up, then a sleep that holds them
    cat >"$DIR/bin/node-init" <<'EOF'
#!/bin/bash
# node-init NODE DIR [SHARED...]: runs in the node's new UTS and mount namespaces (unshare);
# generated by scripts/local-cluster.sh
set -eu
node=$1 dir=$2
shift 2
hostname "$node"
# the cluster's directory and the shared paths stay reachable through the private /tmp: the old
# /tmp is bound to a stage first (a directory outside /tmp, covered in this namespace only for
# the moment it takes), each path is bound back from it, then the stage is let go
stage=""
for s in /mnt /var/tmp /srv; do [ -d "$s" ] && { stage=$s; break; }; done
[ -n "$stage" ] || { echo "node-init: no /mnt, /var/tmp or /srv to stage /tmp on" >&2; exit 1; }
mount --bind /tmp "$stage"
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
for path in "$dir" "$@"; do
    case $path/ in
        /tmp/*) mkdir -p "$path"; mount --bind "$stage/${path#/tmp/}" "$path" ;;
    esac
done
umount -l "$stage"
mount --bind "$dir/hosts" /etc/hosts
readlink /proc/self/ns/mnt >"$dir/run/$node.ns"
readlink /proc/self/ns/uts >>"$dir/run/$node.ns"
exec sleep infinity
EOF
    chmod 755 "$DIR/bin/node-init"
}

write_ssh() {  # the ssh stand-in: `ssh [OPTIONS] [USER@]NODE [COMMAND...]` runs COMMAND on NODE
    cat >"$DIR/bin/ssh" <<EOF
#!/bin/bash
# ssh stand-in of the local cluster in $DIR (scripts/local-cluster.sh): enters the node's
# namespaces instead of connecting; COMMAND runs under a shell, as ssh runs it, in the caller's
# directory when the node has it. Generated at start.
dir=$(printf '%q' "$DIR")
EOF
    cat >>"$DIR/bin/ssh" <<'EOF'
while [ $# -gt 0 ]; do
    case $1 in
        -[BbcDEeFIiJLlmOopQRSWw]) shift 2 ;;   # ssh's options that take a value
        -[BbcDEeFIiJLlmOopQRSWw]?*) shift ;;   # ... given in one word
        --) shift; break ;;
        -*) shift ;;
        *) break ;;
    esac
done
[ $# -ge 1 ] || { echo "ssh (local cluster): usage: ssh NODE COMMAND..." >&2; exit 255; }
node=${1#*@}
shift
anchor=$(cat "$dir/run/$node.anchor" 2>/dev/null) && want=$(head -n1 "$dir/run/$node.ns" 2>/dev/null) &&
    [ "$(readlink "/proc/$anchor/ns/mnt" 2>/dev/null)" = "$want" ] || {
    echo "ssh (local cluster): $node is not a running node of the cluster in $dir" >&2; exit 255; }
[ $# -ge 1 ] || set -- exec /bin/bash -l
exec nsenter -t "$anchor" -u -m -- /bin/bash -c 'cd "$1" 2>/dev/null || cd; shift; eval "$*"' ssh "$PWD" "$@"
EOF
    chmod 755 "$DIR/bin/ssh"
}

prepare_dir() {
    check_dir_ours "" 2
    # Unix socket paths are limited to 107 bytes; slurmstepd's live in the spool directory.
    [ ${#DIR} -le 56 ] ||
        die "directory path too long for Slurm's and munge's sockets (${#DIR} > 56 characters): $DIR" 2
    mkdir -p "$DIR"/{munge,state,spool,log,run,bin}
    touch "$DIR/$MARK"
    chmod 755 "$DIR" "$DIR/munge"
    rm -f "$RUN"/* "$SOCK"
    munge_key
}

shared_paths() {  # the paths under /tmp that a node's private /tmp would hide: PARIO_CLUSTER_SHARE's,
    local p          # and the tree this script is in and the directory it was started from
    SHARED=()
    IFS=: read -r -a _share <<<"${PARIO_CLUSTER_SHARE:-}"
    _share+=("$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)" "$(pwd -P)")
    for p in "${_share[@]}"; do
        [ -n "$p" ] || continue
        [ -d "$p" ] || die "PARIO_CLUSTER_SHARE: $p is not a directory" 2
        p=$(realpath -- "$p")
        case $p/ in
            /tmp/?*) SHARED+=("$p") ;;
            /dev/shm/*) die "PARIO_CLUSTER_SHARE: $p is under /dev/shm, which every node has its own of" 2 ;;
        esac
    done
}

states() { SLURM_CONF=$CONF timeout 10 sinfo -h -N -o '%N %T' 2>/dev/null || true; }
nodes_ready() {
    local s
    s=$(states)
    [ "$(grep -cE ' (idle|mixed|allocated)' <<<"$s")" -eq "$N" ]
}
anchor_ready() {  # anchor_ready NODE: its namespaces are set up (fails at once when the anchor died)
    ours "$(cat "$RUN/$1.anchor" 2>/dev/null)" || return $GONE
    [ -s "$RUN/$1.ns" ] && [ "$(wc -l <"$RUN/$1.ns")" -ge 2 ]
}

fail_start() {
    start_failed "$1" 6 "$DIR/munge/munged.log" "$DIR/log/slurmctld.log" "$DIR"/log/slurmd-node*.log
}

nodes_running() {  # the number of nodes of a cluster that is up, or nothing
    local n
    [ -r "$CONF" ] && pid_of slurmctld.pid >/dev/null || return 1
    n=$(grep -c '^NodeName=' "$CONF")
    N=$n nodes_ready && echo "$n"
}

do_start() {
    [[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le $MAX_NODES ] ||
        die "start $N: the number of nodes is a whole number from 1 to $MAX_NODES" 2
    check_installed
    check_able
    reclaim
    local running
    if running=$(nodes_running); then
        [ "$running" = "$N" ] || die "a cluster of $running nodes runs in $DIR; stop it first (local-cluster.sh stop)"
        say "already running in $DIR ($N nodes)"
        return 0
    fi
    [ -z "$(tagged)$(node_namespaces)" ] || do_stop >/dev/null  # half-started or crashed: from nothing
    local t0 k anchor timeout=${PARIO_CLUSTER_TIMEOUT:-30}
    t0=$(date +%s.%N)
    shared_paths
    prepare_dir
    write_files
    start_munged
    for ((k = 1; k <= N; k++)); do
        env "$TAG=$DIR" setsid unshare --uts --mount --propagation private -- \
            "$DIR/bin/node-init" "node$k" "$DIR" "${SHARED[@]}" </dev/null >>"$DIR/log/node$k.log" 2>&1 &
        echo $! >"$RUN/node$k.anchor"
    done
    for ((k = 1; k <= N; k++)); do
        wait_for "$timeout" anchor_ready "node$k" ||
            fail_start "node$k's namespaces were not set up ($(tail -n1 "$DIR/log/node$k.log" 2>/dev/null))"
    done
    wait_for "$timeout" munge_ok || fail_start "munged does not answer on $SOCK"
    env "$TAG=$DIR" SLURM_CONF="$CONF" slurmctld -f "$CONF" -c || fail_start "slurmctld did not start"
    wait_for "$timeout" ctld_ok || fail_start "slurmctld does not answer on port $PORT"
    for ((k = 1; k <= N; k++)); do
        anchor=$(cat "$RUN/node$k.anchor")
        nsenter -t "$anchor" -u -m -- env "$TAG=$DIR" SLURM_CONF="$CONF" slurmd -f "$CONF" -N "node$k" ||
            fail_start "slurmd of node$k did not start"
    done
    wait_for "$timeout" nodes_ready ||
        fail_start "the nodes are not ready after ${timeout}s: $(states | tr '\n' ' ')"
    say "up in $(elapsed "$t0" 2) s: $N nodes" \
        "node[1-$N] ($CPUS CPUs each on a machine of $(nproc)), partition debug, slurmctld port $PORT, $DIR"
    say "use it with: eval \"\$($0 env $DIR)\""
}

# ---- stop, status, env, exec ----------------------------------------------------------------

do_stop() {
    local pid i kw left spaces f
    spaces=$(node_namespaces)
    if [ -z "$(tagged)" ] && [ -z "$(in_nodes "$spaces")" ]; then
        rm -f "$RUN"/* 2>/dev/null || true
        say "not running ($DIR)"
        return 0
    fi
    if pid_of slurmctld.pid >/dev/null && ctld_ok; then
        if [ -n "$(SLURM_CONF=$CONF squeue -h -o %A 2>/dev/null)" ]; then
            SLURM_CONF=$CONF scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
            kw=$(sed -n 's/^KillWait=//p' "$CONF" 2>/dev/null)
            for ((i = 0; i < (${kw:-30} + 10) * 10; i++)); do
                [ -z "$(SLURM_CONF=$CONF squeue -h -o %A 2>/dev/null)" ] && break
                sleep 0.1
            done
        fi
    fi
    for f in "$RUN"/slurmd-node*.pid; do
        [ -e "$f" ] || continue
        pid=$(pid_of "${f##*/}") && end_pid "$pid" 10
    done
    pid=$(pid_of slurmctld.pid) && end_pid "$pid" 10
    # what still runs inside the nodes (steps, ranks, shells of `exec`), the anchors last
    local anchors others
    anchors=$(for f in "$RUN"/node*.anchor; do cat "$f" 2>/dev/null; done; tagged)
    others=$(in_nodes "$spaces" | grep -vxF -f <(echo "$anchors") || true)
    # shellcheck disable=SC2086  # one argument per pid
    end_all 3 $others
    pid=$(pid_of munged.pid) && end_pid "$pid" 10
    # shellcheck disable=SC2086
    end_all 3 $(tagged) $(in_nodes "$spaces")
    left=$( (tagged; in_nodes "$spaces") | sort -u | tr '\n' ' ')
    [ -z "${left// /}" ] || die "processes still running after stop: $left"
    rm -f "$RUN"/* "$SOCK" "$SOCK.lock" 2>/dev/null || true
    say "stopped ($DIR)"
}

do_status() {
    local rc=0 f node anchor pid n
    if pid=$(pid_of munged.pid); then say "munged running (pid $pid)"; else say "munged not running"; rc=1; fi
    if pid=$(pid_of slurmctld.pid); then say "slurmctld running (pid $pid)"; else say "slurmctld not running"; rc=1; fi
    n=0
    for f in "$RUN"/node*.anchor; do
        [ -e "$f" ] || continue
        node=${f##*/}; node=${node%.anchor}; n=$((n + 1))
        anchor=$(cat "$f")
        if ours "$anchor"; then
            pid=$(pid_of "slurmd-$node.pid") && pid="slurmd pid $pid" || { pid="no slurmd"; rc=1; }
            say "$node: namespaces held by pid $anchor, hostname $(nsenter -t "$anchor" -u -- hostname), $pid"
        else
            say "$node: namespaces gone"; rc=1
        fi
    done
    [ $n -gt 0 ] || { say "no nodes ($DIR)"; rc=1; }
    if [ $rc = 0 ]; then
        states | sed "s/^/$ME: sinfo: /"
        N=$n nodes_ready || rc=1
    fi
    return $rc
}

do_env() {
    [ -r "$CONF" ] || die "no $CONF: run local-cluster.sh start N $DIR first"
    printf 'export SLURM_CONF=%q\nexport PARIO_CLUSTER_DIR=%q\n' "$CONF" "$DIR"
    # mpirun and mpiexec without Slurm: the nodes by name through the ssh stand-in; ranks of
    # different nodes talk over loopback TCP (Open MPI's shared memory stays within a node)
    printf 'export OMPI_MCA_plm_rsh_agent=%q\nexport OMPI_MCA_orte_default_hostfile=%q\n' \
        "$DIR/bin/ssh" "$DIR/hostfile"
    printf 'export OMPI_MCA_btl_tcp_if_include=lo\nexport OMPI_MCA_oob_tcp_if_include=lo\n'
    # the nodes announce more CPUs than the machine has, so Open MPI does not see its ranks
    # oversubscribed and spins while it waits: 6 ranks on 3 nodes of 2 cores wrote 5 MiB/s so,
    # 154 MiB/s yielding (mpirun or srun alike)
    printf 'export OMPI_MCA_mpi_yield_when_idle=1\n'
    printf 'export HYDRA_LAUNCHER=ssh\nexport HYDRA_LAUNCHER_EXEC=%q\nexport HYDRA_HOST_FILE=%q\n' \
        "$DIR/bin/ssh" "$DIR/hostfile.hydra"
}

do_exec() {
    local node=$1
    shift
    [ -x "$DIR/bin/ssh" ] || die "no cluster in $DIR: run local-cluster.sh start N first"
    local anchor want
    anchor=$(cat "$RUN/$node.anchor" 2>/dev/null) && want=$(head -n1 "$RUN/$node.ns" 2>/dev/null) &&
        [ "$(readlink "/proc/$anchor/ns/mnt" 2>/dev/null)" = "$want" ] ||
        die "$node is not a running node of the cluster in $DIR"
    exec nsenter -t "$anchor" -u -m -- /bin/bash -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' \
        exec "$PWD" "$@"
}

case $CMD in
    start) do_start ;;
    stop) do_stop; reclaim ;;
    status) do_status ;;
    env) do_env ;;
    exec) do_exec "$@" ;;
esac
