#!/usr/bin/env bash
# A real striped parallel file system on one machine for pario's tests and demos: CephFS with one
# monitor, N object servers (OSDs) and one metadata server on 127.0.0.1, mounted with ceph-fuse.
# Everything lives in one directory (configuration, data, sockets, pid files, logs, the mount
# point), on ports of its own, so that it never touches /etc/ceph or another cluster.
#
#   local-pfs.sh start  [--servers N] [--cap RATE] [--object-size SIZE] [--dir DIR]
#                 a new file system (any earlier one in DIR is stopped and wiped); prints the mount
#   local-pfs.sh stop   [--dir DIR]   unmount, end every daemon, remove the cgroups and the data
#   local-pfs.sh status [--dir DIR]   what runs; exit 0 only when the file system is mounted
#   local-pfs.sh env    [--dir DIR]   shell lines a client needs: eval "$(local-pfs.sh env)"
#   start and stop also clean, and say, what a killed run of this script in another directory left:
#   its processes once that directory lost its mark, its dead ceph-fuse mount, its blkio cgroup
#   and its port claim (/tmp/.pario-pfs-port.*); never a live run's, nor another user's.
#
# DIR defaults to $PARIO_PFS_DIR, else /tmp/pario-pfs; the file system is mounted at DIR/mnt.
# --servers N   object servers (OSDs), default 4.
# --cap RATE    a bandwidth cap per object server, e.g. 50m (MiB/s): each OSD runs in a blkio
#               cgroup of its own (cgroup v1) throttling its reads and writes on the disk under DIR.
#               Without caps one FUSE client and the CPUs bound everything and layouts change little.
# --object-size SIZE  the object size of new files (the root directory's layout), default 128m:
#               CephFS's own default is 4m, which spreads any file larger than 4 MiB over the
#               servers whatever its stripe count; 128m (the OSDs' largest object) keeps a file of
#               up to 128 MiB at stripe count 1 on one server, as Lustre keeps it on one OST.
# Environment: PARIO_PFS_PORT (the monitor's port, the next 99 are the daemons'; default the
# first free block from 13300), PARIO_PFS_TIMEOUT (seconds to wait for each step, default 60).
#
# Exit codes: 0 done, 1 failed (status: not mounted), 2 usage, 3 Ceph is not installed,
# 4 this machine cannot run it (not root, no /dev/fuse, no blkio cgroup for --cap).
set -euo pipefail

PATH="$PATH:/usr/sbin:/sbin"
ME=local-pfs
TAG=PARIO_LOCAL_PFS            # set in the daemons' environment: finds them after a crash
MARK=.pario-local-pfs          # marks a directory as ours, so start never writes elsewhere
CGROOT=/sys/fs/cgroup/blkio
POLL=0.1       # wait_for's interval: its conditions run the ceph command
# shellcheck source=lib/local-common.sh
. "$(dirname "$(realpath "${BASH_SOURCE[0]}")")/lib/local-common.sh"   # also when run through a link

usage() {
    echo "usage: $0 start [--servers N] [--cap RATE] [--object-size SIZE] [--dir DIR] | stop|status|env [--dir DIR]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
CMD=$1; shift
case $CMD in start|stop|status|env) ;; *) usage ;; esac
SERVERS=4; CAP=""; OBJECT_SIZE=128m; DIR=${PARIO_PFS_DIR:-/tmp/pario-pfs}
while [ $# -gt 0 ]; do
    case $1 in
        --servers|--cap|--object-size|--dir)
            [ $# -ge 2 ] || die "$1 needs a value" 2
            [ "$CMD" = start ] || [ "$1" = --dir ] || die "$1 is an option of start" 2
            case $1 in
                --servers) SERVERS=$2 ;; --cap) CAP=$2 ;; --object-size) OBJECT_SIZE=$2 ;; --dir) DIR=$2 ;;
            esac
            shift 2 ;;
        *) usage ;;
    esac
done
DIR=$(realpath -m -- "$DIR")
CONF=$DIR/ceph.conf
RUN=$DIR/run
MNT=$DIR/mnt
TIMEOUT=${PARIO_PFS_TIMEOUT:-60}
# Admin sockets are Unix sockets (paths up to 107 bytes): DIR/run/client.admin.PID.asok must fit.
[ ${#DIR} -le 64 ] || die "directory path too long for Ceph's admin sockets (${#DIR} > 64 characters): $DIR" 2

bytes_of() {  # bytes_of 50m -> 52428800 (k, m, g: powers of 1024); nothing when not a size
    local n unit
    [[ ${1,,} =~ ^([0-9]+)([kmg]?)(i?b)?$ ]] || return 1
    n=${BASH_REMATCH[1]}; unit=${BASH_REMATCH[2]}
    case $unit in k) n=$((n << 10)) ;; m) n=$((n << 20)) ;; g) n=$((n << 30)) ;; esac
    echo "$n"
}

# ---- processes ------------------------------------------------------------------------------

tagged_named() {  # tagged_named COMM: the tagged processes of that command name
    local pid
    for pid in $(tagged); do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$1" ] && echo "$pid"
    done
    return 0
}

mounted() { grep -qF " $MNT fuse.ceph-fuse " /proc/self/mounts 2>/dev/null || awk -v m="$MNT" '$2 == m {f = 1} END {exit !f}' /proc/self/mounts; }

ceph_() { timeout 30 ceph -c "$CONF" --connect-timeout 20 "$@"; }

# ---- what earlier runs left -----------------------------------------------------------------

claim_of() { echo "/tmp/.pario-pfs-port.$(echo "$1" | md5sum | cut -c1-12)"; }  # claim_of DIR

reclaim() {  # what a killed run of this script in another directory left, said as it goes (the caller
    local live m d f h cg port owner  # holds the port lock, so no start is between its claim and its monitor)
    end_abandoned
    live=$(instances | cut -d' ' -f2- | sort -u | while IFS= read -r d; do claim_of "$d"; done)
    # a ceph-fuse mount at D/mnt of this user, no process of D alive, D marked or claimed by this script
    while IFS= read -r m; do
        d=${m%/mnt}
        [ "$d" != "$m" ] && [ "$d" != "$DIR" ] || continue
        grep -qxF "$(claim_of "$d")" <<<"$live" && continue
        [ -e "$d/$MARK" ] || { f=$(claim_of "$d"); [ -O "$f" ]; } || continue
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || { say "could not unmount $m (left by an earlier run)"; continue; }
        [ -e "$d/$MARK" ] || rmdir "$m" 2>/dev/null || true
        say "unmounted $m: its ceph-fuse was gone (an earlier run in $d was killed)"
    done < <(awk -v uid="user_id=$(id -u)," '$3 == "fuse.ceph-fuse" && index($4 ",", uid) && $2 !~ /\\/ {print $2}' /proc/self/mounts)
    for cg in "$CGROOT"/pario-pfs.*; do
        [ -d "$cg" ] && [ -O "$cg" ] || continue
        grep -qxF "/tmp/.pario-pfs-port.${cg##*.}" <<<"$live" && continue
        for f in "$cg"/osd.*; do if [ -d "$f" ]; then rmdir "$f" 2>/dev/null || true; fi; done
        if rmdir "$cg" 2>/dev/null; then say "removed cgroup $cg (no process of its run is left)"; fi
    done
    for f in /tmp/.pario-pfs-port.*; do
        h=${f##*.}
        [ "$h" != lock ] && [ -f "$f" ] && [ -O "$f" ] || continue
        grep -qxF "$f" <<<"$live" && continue
        port=$(head -n1 "$f" 2>/dev/null); owner=$(sed -n 2p "$f" 2>/dev/null)
        rm -f "$f"; say "removed the claim on ports from ${port:-?} ($f${owner:+, $owner}): no process of its run is left"
    done
    return 0
}

reclaim_locked() {  # reclaim under the port lock (stop: a start may be between its claim and its monitor)
    exec 8>/tmp/.pario-pfs-port.lock
    flock 8
    reclaim
    flock -u 8; exec 8>&-
}

# ---- start ----------------------------------------------------------------------------------

check_machine() {
    local t
    for t in ceph-mon:ceph-mon ceph-osd:ceph-osd ceph-mds:ceph-mds ceph-fuse:ceph-fuse ceph:ceph-common \
             ceph-authtool:ceph-common monmaptool:ceph-common setfattr:attr getfattr:attr; do
        need "${t%%:*}" "${t#*:}"
    done
    missing_exit Ceph it fuse3
    [ "$(id -u)" = 0 ] || die "needs root (the daemons and a FUSE mount of another user's file system; cgroups)" 4
    [ -c /dev/fuse ] && [ -r /dev/fuse ] && [ -w /dev/fuse ] ||
        die "no usable /dev/fuse (a container needs --device /dev/fuse): ceph-fuse cannot mount" 4
}

pick_port() {  # sets PORT: the monitor's v2 port; v1 is PORT+1; daemons bind PORT+2..PORT+99
    local p
    if [ -n "${PARIO_PFS_PORT:-}" ]; then
        port_setting PARIO_PFS_PORT 2
        port_free "$PORT" && port_free $((PORT + 1)) || die "port $PORT or $((PORT + 1)) is in use (PARIO_PFS_PORT)"
        return
    fi
    for ((p = 13300; p < 16300; p += 100)); do
        # a block is taken when its monitor ports are, or another local-pfs claimed it
        grep -lsxF "$p" /tmp/.pario-pfs-port.* >/dev/null 2>&1 && continue
        port_free "$p" && port_free $((p + 1)) && port_free $((p + 2)) && { PORT=$p; return; }
    done
    die "no free block of ports from 13300 to 16300; set PARIO_PFS_PORT"
}

disk_of() {  # disk_of PATH: MAJ:MIN of the whole disk holding PATH (blkio throttles whole disks)
    local dev maj min sys
    dev=$(stat -c %d "$1")
    maj=$(((dev >> 8) & 0xfff | ((dev >> 32) & ~0xfff)))
    min=$(((dev & 0xff) | ((dev >> 12) & ~0xff)))
    sys=/sys/dev/block/$maj:$min
    [ -e "$sys" ] || return 1
    [ -e "$sys/partition" ] && sys=$(realpath "$sys/..")
    cat "$sys/dev"
}

check_cap() {  # sets DISK
    [ -w "$CGROOT" ] && [ -e "$CGROOT/blkio.throttle.write_bps_device" ] ||
        die "--cap needs the cgroup v1 blkio controller at $CGROOT (writable); this machine has none" 4
    DISK=$(disk_of "$DIR") ||
        die "--cap: $DIR is not on a block device the blkio controller can throttle (tmpfs, overlay?); give --dir on a disk" 4
}

write_conf() {
    local fsid
    fsid=$(cat /proc/sys/kernel/random/uuid)
    cat >"$CONF" <<EOF
# Generated by scripts/local-pfs.sh at every start; edits are lost.
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$PORT,v1:127.0.0.1:$((PORT + 1))]
mon initial members = a
public addr = 127.0.0.1
ms bind port min = $((PORT + 2))
ms bind port max = $((PORT + 99))
auth cluster required = none
auth service required = none
auth client required = none
keyring = $DIR/keyring
run dir = $RUN
admin socket = $RUN/\$name.asok
pid file = $RUN/\$name.pid
log file = $DIR/log/\$name.log
mon data = $DIR/mon/\$name
osd data = $DIR/osd/\$name
mds data = $DIR/mds/\$name
# one machine, one copy of each object, no manager
osd crush chooseleaf type = 0
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default pg autoscale mode = off
mon max pg per osd = 1000
paxos propose interval = 0.1
mon osd down out interval = 0
# small daemons: the machine is shared
osd objectstore = bluestore
bluestore block create = true
bluestore block size = 10737418240
bluestore fsck on mkfs = false
bluestore cache autotune = false
bluestore cache size = 67108864
osd memory target = 536870912
osd op num shards = 1
osd op num threads per shard = 2
mds cache memory limit = 67108864
[client]
admin socket = $RUN/\$name.\$pid.asok
log file = $DIR/log/\$name.\$pid.log
client oc size = 33554432
EOF
}

fail_start() { start_failed "$1" 5 "$DIR"/log/*.log; }

spawn() {  # spawn CGROUP|- COMMAND...: run a daemon tagged (and in CGROUP when given)
    local cg=$1
    shift
    if [ "$cg" = - ]; then
        env "$TAG=$DIR" "$@" </dev/null >>"$DIR/log/spawn.log" 2>&1
    else
        env "$TAG=$DIR" CG="$cg" sh -c 'echo $$ > "$CG/cgroup.procs" && exec "$@"' sh "$@" \
            </dev/null >>"$DIR/log/spawn.log" 2>&1
    fi
}

osds_up() { [ "$(ceph_ osd stat -f json 2>/dev/null | sed -n 's/.*"num_up_osds":\([0-9]*\).*/\1/p')" = "$SERVERS" ]; }
mds_active() { ceph_ mds stat 2>/dev/null | grep -q "up:active"; }

do_start() {
    [[ $SERVERS =~ ^[1-9][0-9]?$ ]] && [ "$SERVERS" -le 16 ] || die "--servers $SERVERS: give 1 to 16 servers" 2
    local obj
    obj=$(bytes_of "$OBJECT_SIZE") && [ "$obj" -gt 0 ] && [ $((obj % 1048576)) -eq 0 ] && [ "$obj" -le 134217728 ] ||
        die "--object-size $OBJECT_SIZE: give a multiple of 1m up to 128m (the OSDs' largest object)" 2
    if [ -n "$CAP" ]; then
        CAP_BYTES=$(bytes_of "$CAP") && [ "$CAP_BYTES" -ge 1048576 ] ||
            die "--cap $CAP: give a rate per server of at least 1m, e.g. --cap 50m (MiB/s)" 2
    fi
    check_machine
    check_dir_ours " (--dir)" 2
    [ -z "$(tagged)" ] && ! mounted || do_stop >/dev/null   # a file system is there: begin from nothing
    mkdir -p "$DIR"
    touch "$DIR/$MARK"
    [ -z "$CAP" ] || check_cap
    rm -rf "$DIR/mon" "$DIR/osd" "$DIR/mds" "$RUN" "$DIR/log"
    mkdir -p "$DIR/mon" "$DIR/osd" "$DIR/mds" "$RUN" "$DIR/log" "$MNT"
    local t0 i pids=() id uuid
    t0=$(date +%s.%N)
    exec 9>/tmp/.pario-pfs-port.lock
    flock 9
    reclaim
    pick_port
    printf '%s\n%s\n' "$PORT" "$DIR" >"$(claim_of "$DIR")"   # the port, then whose (reclaim says it)
    claim_of "$DIR" >"$DIR/port-claim"
    write_conf
    ceph-authtool --create-keyring "$DIR/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
    ceph-authtool "$DIR/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
        --cap mds 'allow *' --cap mgr 'allow *' >/dev/null
    monmaptool --create --fsid "$(sed -n 's/^fsid = //p' "$CONF")" \
        --addv a "[v2:127.0.0.1:$PORT,v1:127.0.0.1:$((PORT + 1))]" "$DIR/monmap" >/dev/null
    ceph-mon -c "$CONF" --mkfs -i a --monmap "$DIR/monmap" >>"$DIR/log/spawn.log" 2>&1 ||
        fail_start "ceph-mon --mkfs failed"
    spawn - ceph-mon -c "$CONF" -i a || fail_start "ceph-mon did not start"
    wait_for "$TIMEOUT" ceph_ mon stat >/dev/null 2>&1 || fail_start "the monitor does not answer on port $PORT"
    flock -u 9; exec 9>&-
    if [ -n "$CAP" ]; then
        CGDIR=$CGROOT/pario-pfs.$(echo "$DIR" | md5sum | cut -c1-12)
        mkdir -p "$CGDIR"
        echo "$CGDIR" >"$DIR/cgroup"
    fi
    for ((i = 0; i < SERVERS; i++)); do
        uuid=$(cat /proc/sys/kernel/random/uuid)
        id=$(ceph_ osd new "$uuid" 2>>"$DIR/log/spawn.log") || fail_start "ceph osd new failed"
        mkdir -p "$DIR/osd/osd.$id"
        ceph-osd -c "$CONF" -i "$id" --mkfs --osd-uuid "$uuid" >>"$DIR/log/spawn.log" 2>&1 &
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || fail_start "ceph-osd --mkfs failed"; done
    pids=()
    for ((i = 0; i < SERVERS; i++)); do  # in parallel: each waits for its daemon's start-up
        if [ -n "$CAP" ]; then
            mkdir -p "$CGDIR/osd.$i"
            echo "$DISK $CAP_BYTES" >"$CGDIR/osd.$i/blkio.throttle.write_bps_device"
            echo "$DISK $CAP_BYTES" >"$CGDIR/osd.$i/blkio.throttle.read_bps_device"
            spawn "$CGDIR/osd.$i" ceph-osd -c "$CONF" -i "$i" &
        else
            spawn - ceph-osd -c "$CONF" -i "$i" &
        fi
        pids+=($!)
    done
    for i in "${pids[@]}"; do wait "$i" || fail_start "a ceph-osd did not start"; done
    local pgs=$((SERVERS * 16))
    ceph_ osd pool create cephfs_metadata 16 16 >/dev/null 2>&1 || fail_start "could not create the metadata pool"
    ceph_ osd pool create cephfs_data "$pgs" "$pgs" >/dev/null 2>&1 || fail_start "could not create the data pool"
    ceph_ fs new pfs cephfs_metadata cephfs_data >/dev/null 2>&1 || fail_start "ceph fs new failed"
    wait_for "$TIMEOUT" osds_up || fail_start "not all $SERVERS OSDs are up after ${TIMEOUT}s"
    mkdir -p "$DIR/mds/mds.a"
    spawn - ceph-mds -c "$CONF" -i a || fail_start "ceph-mds did not start"
    wait_for "$TIMEOUT" mds_active || fail_start "the metadata server is not active after ${TIMEOUT}s"
    spawn - ceph-fuse -c "$CONF" -n client.admin "$MNT" || fail_start "ceph-fuse could not mount $MNT"
    wait_for "$TIMEOUT" mounted || fail_start "$MNT is not mounted after ${TIMEOUT}s"
    setfattr -n ceph.dir.layout -v "stripe_unit=1048576 stripe_count=1 object_size=$obj" "$MNT" ||
        fail_start "could not set the default layout on $MNT"
    printf '%s\n' "$SERVERS" >"$DIR/servers"
    printf '%s\n' "${CAP:-none}" >"$DIR/cap"
    say "up in $(elapsed "$t0" 1) s: CephFS, 1 monitor" \
        "(port $PORT), $SERVERS object servers${CAP:+ capped at $CAP/s each (blkio, disk $DISK)}, 1 metadata server"
    say "new files: stripe_unit=1m stripe_count=1 object_size=$OBJECT_SIZE (getfattr -n ceph.dir.layout $MNT)"
    say "mounted at $MNT"
    echo "$MNT"
}

# ---- stop, status, env ----------------------------------------------------------------------

do_stop() {
    local pid i left cg
    if mounted; then
        umount "$MNT" 2>/dev/null || {
            for pid in $(tagged_named ceph-fuse); do kill -KILL "$pid" 2>/dev/null || true; done
            umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true
        }
    fi
    # The MDS ignores SIGTERM for seconds and nothing here needs to survive: SIGKILL at once.
    for ((i = 0; i < 50; i++)); do
        left=$(tagged | tr '\n' ' ')
        [ -n "${left// /}" ] || break
        # shellcheck disable=SC2086  # one argument per pid
        kill -KILL $left 2>/dev/null || true
        sleep 0.1
    done
    [ -z "${left// /}" ] || die "processes still running after stop: $left"
    ! mounted || die "$MNT is still mounted"
    if [ -r "$DIR/cgroup" ]; then
        cg=$(cat "$DIR/cgroup")
        case $cg in "$CGROOT"/pario-pfs.*) ;; *) die "$DIR/cgroup names $cg, not a cgroup of local-pfs.sh" ;; esac
        # a killed daemon leaves its cgroup only once it is gone for good: retry (and under set -e a
        # failed rmdir must not end the script half-way, leaving the cgroup and the port claim)
        for ((i = 0; i < 100; i++)); do
            for f in "$cg"/osd.*; do
                if [ -d "$f" ]; then rmdir "$f" 2>/dev/null || true; fi
            done
            if [ -d "$cg" ]; then rmdir "$cg" 2>/dev/null || true; fi
            [ -d "$cg" ] || break
            sleep 0.1
        done
        [ ! -d "$cg" ] || die "cgroup $cg could not be removed"
        rm -f "$DIR/cgroup"
    fi
    [ -r "$DIR/port-claim" ] && rm -f "$(cat "$DIR/port-claim")" "$DIR/port-claim"
    if [ -e "$DIR/$MARK" ]; then
        rm -rf "$DIR/mon" "$DIR/osd" "$DIR/mds" "$RUN" "$DIR/keyring" "$DIR/monmap"
        rmdir "$MNT" 2>/dev/null || true
    fi
    say "stopped ($DIR)"
}

do_status() {
    local name rc=0 pids
    for name in ceph-mon ceph-osd ceph-mds ceph-fuse; do
        pids=$(tagged_named "$name" | tr '\n' ' ')
        if [ -n "${pids// /}" ]; then say "$name running (pid ${pids% })"; else say "$name not running"; rc=1; fi
    done
    if mounted; then
        say "mounted at $MNT ($(cat "$DIR/servers" 2>/dev/null || echo '?') object servers, cap $(cat "$DIR/cap" 2>/dev/null || echo '?'))"
    else
        say "not mounted ($MNT)"; rc=1
    fi
    [ -r "$DIR/cgroup" ] && say "cgroup $(cat "$DIR/cgroup")"
    return $rc
}

do_env() {
    mounted || die "nothing mounted at $MNT: run local-pfs.sh start --dir $DIR first"
    printf 'export PARIO_PFS_DIR=%q\nexport PARIO_PFS_MOUNT=%q\nexport CEPH_CONF=%q\n' "$DIR" "$MNT" "$CONF"
}

"do_$CMD"   # start, stop, status or env: checked above
[ "$CMD" != stop ] || reclaim_locked   # and what killed runs elsewhere left (start: under its lock)
