# What scripts/local-slurm.sh, local-cluster.sh and local-pfs.sh share (sourced by them, never run):
# messages, the processes of one instance, ports, waiting, the instance's directory, and for the two
# Slurm scripts the private munged and the common part of slurm.conf.
#
# The sourcing script sets, before it calls these: ME (its name in messages), TAG and DIR (a process
# belongs to the instance when TAG=DIR is in its environment, set by `env "$TAG=$DIR"` at its start:
# pid files can be stale, the environment finds the daemons after a crash too), MARK (the file that
# marks DIR as the script's own), RUN (the pid files), and for munge and Slurm SOCK and CONF. It
# defines do_stop, which start_failed calls to undo a start. Optional: TAGGED_ALSO (a function that
# prints more pids of the instance), POLL (wait_for's interval, 0.05 s), GONE (a wait_for condition's
# return code that means waiting longer cannot help).

# ---- messages -------------------------------------------------------------------------------

say() { printf '%s: %s\n' "$ME" "$*"; }
die() { printf '%s: error: %s\n' "$ME" "$1" >&2; exit "${2:-1}"; }
have() { local p; p=$(command -v "$1" 2>/dev/null) && [ -f "$p" ] && [ -x "$p" ]; }

MISSING=() PKGS=()
need() { have "$1" || { MISSING+=("$1"); PKGS+=("$2"); }; }  # need TOOL PACKAGE: note a missing tool

missing_exit() {  # missing_exit WHAT PRONOUN [EXTRA]: when a tool is missing, exit 3 naming the
    [ ${#MISSING[@]} -eq 0 ] && return 0  # tools and the apt-get line that installs their packages
    printf '%s: error: %s is not installed (missing: %s)\n' "$ME" "$1" "${MISSING[*]}" >&2
    printf '%s: install %s (Debian, Ubuntu) with: apt-get install -y --no-install-recommends %s%s\n' "$ME" "$2" \
        "$(printf '%s\n' "${PKGS[@]}" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//')" "${3:+ $3}" >&2
    exit 3
}

elapsed() {  # elapsed T0 DIGITS: seconds since T0 (date +%s.%N)
    awk -v a="$1" -v b="$(date +%s.%N)" -v d="$2" 'BEGIN {printf "%.*f", d, b - a}'
}

# ---- processes ------------------------------------------------------------------------------

alive() {  # alive PID: exists and is not a zombie (a killed daemon can linger as <defunct>)
    local state
    [ -n "${1:-}" ] && [ -r "/proc/$1/stat" ] || return 1
    state=$(awk '{sub(/.*\) /, ""); print $1}' "/proc/$1/stat" 2>/dev/null) || return 1
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

tagged() {  # every live process of this instance, this shell excepted
    local f pid
    while read -r f; do
        pid=${f#/proc/}; pid=${pid%/environ}
        [ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] && alive "$pid" && echo "$pid"
    done < <(grep -lzxF "$TAG=$DIR" /proc/[0-9]*/environ 2>/dev/null)
    [ -z "${TAGGED_ALSO:-}" ] || "$TAGGED_ALSO"
    return 0
}

ours() {  # ours PID: a live process started by this script for this DIR
    alive "$1" && grep -qzxF "$TAG=$DIR" "/proc/$1/environ" 2>/dev/null
}

pid_of() {  # pid_of FILE: the pid in RUN/FILE if that process is ours
    local pid
    pid=$(cat "$RUN/$1" 2>/dev/null) || return 1
    ours "$pid" && echo "$pid"
}

end_pid() {  # end_pid PID SECONDS: SIGTERM, wait, then SIGKILL
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < $2 * 10; i++)); do alive "$pid" || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do alive "$pid" || return 0; sleep 0.1; done
}

instances() {  # "PID DIR" of every live process of any instance of this script (its TAG), this shell
    local pid d  # excepted; a DIR with a newline in it is not listed (nothing is done to it)
    while IFS=' ' read -r pid d; do
        [ "$pid" != $$ ] && [ "$pid" != "$BASHPID" ] && alive "$pid" && echo "$pid $d"
    done < <(grep -Haz "^$TAG=" /proc/[0-9]*/environ 2>/dev/null | tr '\0' '\n' |
             sed -n "s|^/proc/\([0-9]*\)/environ:$TAG=\(/.*\)|\1 \2|p")
    return 0
}

abandoned() {  # "PID DIR" of this user's processes of another instance whose directory has lost its
    local pid d  # mark (removed with the directory by hand or by a test's clean-up: no stop can
    while IFS=' ' read -r pid d; do  # find its files any more); the mark is looked for as the process sees it
        [ "$d" != "$DIR" ] && [ -O "/proc/$pid" ] && [ ! -e "/proc/$pid/root$d/$MARK" ] &&
            [ -e "/proc/$pid/root/" ] && echo "$pid $d"
    done < <(instances)
    return 0
}

end_abandoned() {  # end_abandoned [PID...]: end the processes abandoned() names (and the PIDs given:
    local lines d pids p rest  # what runs in their namespaces), saying which run they were left by
    lines=$(abandoned)
    [ -n "$lines" ] || [ $# -gt 0 ] || return 0
    while IFS= read -r d; do
        [ -n "$d" ] || continue
        pids=$(while IFS=' ' read -r p rest; do [ "$rest" = "$d" ] && echo "$p"; done <<<"$lines" | tr '\n' ' ')
        say "ending processes left by an earlier run in $d (its directory is gone or no longer $ME's): pid ${pids% }"
    done < <(cut -d' ' -f2- <<<"$lines" | sort -u)
    # shellcheck disable=SC2046  # one argument per pid
    set -- $(cut -d' ' -f1 <<<"$lines") "$@"
    kill -TERM "$@" 2>/dev/null || true
    local i left
    for ((i = 0; i < 50; i++)); do
        left=""; for p in "$@"; do alive "$p" && left="$left $p"; done
        [ -n "$left" ] || return 0
        [ "$i" -lt 30 ] || kill -KILL $left 2>/dev/null || true
        sleep 0.1
    done
    say "still running after SIGKILL:$left"
}

# ---- ports, waiting, the directory ----------------------------------------------------------

port_free() {  # nothing accepts a connection on 127.0.0.1:PORT
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

port_setting() {  # port_setting NAME CODE: PORT from the environment variable NAME, or exit CODE
    PORT=${!1}
    [[ $PORT =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1024 ] && [ "$PORT" -le 65000 ] ||
        die "$1=$PORT is not a port number from 1024 to 65000" "$2"
}

wait_for() {  # wait_for SECONDS COMMAND...: poll every POLL seconds until COMMAND succeeds
    local end=$((SECONDS + $1)) rc
    shift
    while :; do
        rc=0; "$@" || rc=$?
        [ $rc = 0 ] && return 0
        [ -z "${GONE:-}" ] || [ $rc != "$GONE" ] || return 1
        [ $SECONDS -lt $end ] || return 1
        sleep "${POLL:-0.05}"
    done
}

check_dir_ours() {  # check_dir_ours HINT CODE: exit CODE unless DIR is new, empty or marked ours
    if [ -d "$DIR" ] && [ ! -e "$DIR/$MARK" ] && [ -n "$(ls -A "$DIR" 2>/dev/null)" ]; then
        die "$DIR is not empty and was not made by $ME.sh; give a new or empty directory$1" "$2"
    fi
}

start_failed() {  # start_failed MESSAGE LINES LOG...: say why, show the logs' last LINES lines,
    local f msg=$1 lines=$2  # undo what started (do_stop) and exit 1
    shift 2
    printf '%s: error: %s\n' "$ME" "$msg" >&2
    for f in "$@"; do
        [ -s "$f" ] && { echo "--- last lines of $f" >&2; tail -n "$lines" "$f" >&2; }
    done
    do_stop >/dev/null 2>&1 || true
    exit 1
}

# ---- munge and Slurm (local-slurm.sh, local-cluster.sh) ---------------------------------------

need_slurm() {  # the daemons, the client commands and MUNGE
    local t
    for t in slurmctld slurmd; do need "$t" "$t"; done
    for t in sinfo srun sbatch salloc squeue scontrol scancel; do need "$t" slurm-client; done
    for t in munged munge unmunge; do need "$t" munge; done
}

munge_key() {  # DIR/munge/munge.key, made once and kept across starts
    if [ ! -s "$DIR/munge/munge.key" ]; then
        if have mungekey; then
            mungekey --create --keyfile="$DIR/munge/munge.key"
        else
            dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
        fi
    fi
    chmod 400 "$DIR/munge/munge.key"
}

start_munged() {  # a munged of this instance only: its own key, socket, pid file and log
    env "$TAG=$DIR" munged --force --key-file="$DIR/munge/munge.key" --socket="$SOCK" \
        --pid-file="$RUN/munged.pid" --log-file="$DIR/munge/munged.log" \
        --seed-file="$DIR/munge/munged.seed" 2>>"$DIR/munge/munged.log" ||
        fail_start "munged did not start"
}

munge_ok() { munge -n -S "$SOCK" 2>/dev/null | unmunge -S "$SOCK" >/dev/null 2>&1; }
ctld_ok() { [[ $(SLURM_CONF=$CONF timeout 5 scontrol ping 2>/dev/null) == *"is UP"* ]]; }

mem_of() {  # mem_of LINE: RealMemory of `slurmd -C`'s first line, else the machine's (MiB)
    local mem
    mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$1")
    [ -n "$mem" ] || mem=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
    echo "$mem"
}

slurm_conf_head() {  # slurm_conf_head CLUSTER: slurm.conf's first lines: munge, the users, the state
    cat <<EOF
# Generated by scripts/$ME.sh at every start; edits are lost.
ClusterName=$1
SlurmctldHost=localhost
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$DIR/state
EOF
}

slurm_conf_policy() {  # slurm_conf_policy KILLWAIT: plug-ins and scheduling, as both clusters run
    cat <<EOF
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
KillWait=$1
MinJobAge=300
EOF
}
