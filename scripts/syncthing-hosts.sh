#!/usr/bin/env bash
# Emulated machines sharing one cloud folder through Syncthing: each host is a network
# namespace (a veth into a bridge in a "switch" namespace) with its own Syncthing home and its
# own copy of the cloud; where namespaces cannot be made, hosts are Syncthing instances on
# distinct loopback ports. Syncthing talks only to the other hosts' addresses: no global or
# local discovery, no relays, no NAT, no usage reports, no upgrades.
#
#   scripts/syncthing-hosts.sh up N        start N hosts (2–9) and wait until all are connected
#   scripts/syncthing-hosts.sh down        stop every process this made, delete its namespaces and files
#   scripts/syncthing-hosts.sh cut I       take host I off the network (link down, or devices paused)
#   scripts/syncthing-hosts.sh heal I      put it back
#   scripts/syncthing-hosts.sh exec I CMD  run CMD on host I (inside its namespace)
#   scripts/syncthing-hosts.sh idle I      wait until host I's Syncthing has nothing left to pull or send
#   scripts/syncthing-hosts.sh env         print MM_ROOT, MM_MODE, MM_HOSTS for `eval`
#
# Host I's cloud is $MM_ROOT/hI/cloud (give it to ubiq as --cloud); its devices belong under
# $MM_ROOT/hI/devices. MM_ROOT defaults to /tmp/ubiq-multi-machine. Sourcing this file instead
# gives the functions (mm_up, mm_down, mm_exec, mm_spawn, mm_cut, mm_heal, mm_idle) to another
# script. MM_LOOPBACK=1 asks for loopback ports even where namespaces work. Several sets of
# hosts can run at once when each has its own MM_ROOT, MM_PREFIX (names of namespaces and
# links, at most 10 characters) and, on loopback, MM_PORT_OFFSET (added to every port); `up`
# records them in $MM_ROOT/env, so later commands need only MM_ROOT.
# Every wait has a hard timeout; a machine that cannot run Syncthing hosts gets one line
# starting "skip:" on stdout and exit status 3.

MM_ROOT=${MM_ROOT:-/tmp/ubiq-multi-machine}
MM_PREFIX=${MM_PREFIX:-ubqmm}
MM_PORT_OFFSET=${MM_PORT_OFFSET:-0}
MM_FOLDER=ubiq-cloud

mm_log() { echo "hosts: $*" >&2; }

# Prints "netns" or "loopback"; says why on stderr when namespaces are out of reach.
mm_detect_mode() {
    if [[ -n ${MM_LOOPBACK:-} ]]; then mm_log "MM_LOOPBACK set: hosts on loopback ports"; echo loopback; return; fi
    if [[ $(id -u) -ne 0 ]]; then mm_log "not root: hosts on loopback ports"; echo loopback; return; fi
    if ! command -v ip >/dev/null 2>&1; then mm_log "no ip command: hosts on loopback ports"; echo loopback; return; fi
    if ip netns add "$MM_PREFIX-probe" 2>/dev/null; then
        ip netns del "$MM_PREFIX-probe"
        echo netns
    else
        mm_log "cannot make network namespaces: hosts on loopback ports"
        echo loopback
    fi
}

# Makes sure Syncthing is installed (apt as root); returns 3 with a skip line when it cannot be.
mm_need_syncthing() {
    command -v syncthing >/dev/null 2>&1 && return 0
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        mm_log "installing syncthing"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq syncthing) >/dev/null 2>&1 || true
    fi
    command -v syncthing >/dev/null 2>&1 && return 0
    echo "skip: syncthing is not installed and cannot be (needs root and apt)"
    return 3
}

mm_load() {
    [[ -f $MM_ROOT/env ]] || { mm_log "no hosts at $MM_ROOT"; return 1; }
    # shellcheck disable=SC1091
    source "$MM_ROOT/env"
}

mm_exec() {
    local host=$1; shift
    if [[ $MM_MODE == netns ]]; then ip netns exec "$MM_PREFIX-h$host" "$@"; else "$@"; fi
}

# The REST API of host I: mm_rest I METHOD PATH → the JSON answer on stdout.
mm_rest() {
    local host=$1 method=$2 path=$3
    local key; key=$(cat "$MM_ROOT/h$host/apikey")
    mm_exec "$host" python3 - "$method" "http://127.0.0.1:$(mm_gui_port "$host")$path" "$key" <<'PY'
import sys, urllib.request
method, url, key = sys.argv[1:4]
request = urllib.request.Request(url, method=method, headers={"X-API-Key": key}, data=b"" if method == "POST" else None)
with urllib.request.urlopen(request, timeout=5) as answer:
    sys.stdout.write(answer.read().decode())
PY
}

mm_gui_port() { if [[ $MM_MODE == netns ]]; then echo 8384; else echo $((18380 + MM_PORT_OFFSET + $1)); fi; }
mm_sync_address() { if [[ $MM_MODE == netns ]]; then echo "10.77.0.$1:22000"; else echo "127.0.0.1:$((22100 + MM_PORT_OFFSET + $1))"; fi; }

mm_write_config() {
    local host=$1 count=$2 self id j devices="" members=""
    self=$(cat "$MM_ROOT/h$host/id")
    for ((j = 1; j <= count; j++)); do
        id=$(cat "$MM_ROOT/h$j/id")
        members+="        <device id=\"$id\" introducedBy=\"\"></device>"$'\n'
        if ((j == host)); then
            devices+="    <device id=\"$id\" name=\"h$j\" compression=\"metadata\" introducer=\"false\"><address>dynamic</address></device>"$'\n'
        else
            devices+="    <device id=\"$id\" name=\"h$j\" compression=\"metadata\" introducer=\"false\"><address>tcp://$(mm_sync_address "$j")</address></device>"$'\n'
        fi
    done
    cat >"$MM_ROOT/h$host/st/config.xml" <<XML
<configuration version="36">
    <folder id="$MM_FOLDER" label="cloud" path="$MM_ROOT/h$host/cloud" type="sendreceive" rescanIntervalS="10" fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
        <filesystemType>basic</filesystemType>
$members        <minDiskFree unit="%">0</minDiskFree>
        <order>random</order>
        <maxConflicts>10</maxConflicts>
        <markerName>.stfolder</markerName>
    </folder>
$devices    <gui enabled="true" tls="false" debugging="false">
        <address>127.0.0.1:$(mm_gui_port "$host")</address>
        <apikey>$(cat "$MM_ROOT/h$host/apikey")</apikey>
    </gui>
    <options>
        <listenAddress>tcp://$(mm_sync_address "$host")</listenAddress>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <urAccepted>-1</urAccepted>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <crashReportingEnabled>false</crashReportingEnabled>
        <startBrowser>false</startBrowser>
        <reconnectionIntervalS>2</reconnectionIntervalS>
        <stunKeepaliveStartS>0</stunKeepaliveStartS>
        <minHomeDiskFree unit="%">0</minHomeDiskFree>
        <setLowPriority>false</setLowPriority>
    </options>
</configuration>
XML
}

mm_up() {
    local count=${1:-2} mode host j deadline
    ((count >= 2 && count <= 9)) || { mm_log "between 2 and 9 hosts"; return 1; }
    # A link is named PREFIX + host + a/b, and Linux allows 15 characters.
    [[ $MM_PREFIX =~ ^[a-z][a-z0-9]{0,9}$ ]] || { mm_log "MM_PREFIX: a letter, then at most 9 letters or digits"; return 1; }
    mm_need_syncthing || return $?
    [[ -e $MM_ROOT/env ]] && mm_down
    mode=$(mm_detect_mode)
    mkdir -p "$MM_ROOT"
    printf 'MM_MODE=%s\nMM_HOSTS=%s\nMM_PREFIX=%s\nMM_PORT_OFFSET=%s\n' "$mode" "$count" "$MM_PREFIX" "$MM_PORT_OFFSET" >"$MM_ROOT/env"
    mm_load
    if [[ $mode == netns ]]; then
        ip netns add "$MM_PREFIX-sw"
        ip -n "$MM_PREFIX-sw" link add br0 type bridge
        ip -n "$MM_PREFIX-sw" link set br0 up
    fi
    for ((host = 1; host <= count; host++)); do
        mkdir -p "$MM_ROOT/h$host/cloud/.stfolder" "$MM_ROOT/h$host/devices"
        # Our temporary files and lock files never travel (DESIGN §2); (?d) lets Syncthing
        # delete them when they would keep a removed folder alive.
        printf '(?d)*.nosync\n' >"$MM_ROOT/h$host/cloud/.stignore"
        syncthing generate --home="$MM_ROOT/h$host/st" --no-default-folder >/dev/null 2>&1
        syncthing serve --home="$MM_ROOT/h$host/st" --device-id >"$MM_ROOT/h$host/id"
        python3 -c 'import secrets; print(secrets.token_hex(16))' >"$MM_ROOT/h$host/apikey"
        if [[ $mode == netns ]]; then
            ip netns add "$MM_PREFIX-h$host"
            ip link add "$MM_PREFIX${host}a" type veth peer name "$MM_PREFIX${host}b"
            ip link set "$MM_PREFIX${host}a" netns "$MM_PREFIX-h$host"
            ip link set "$MM_PREFIX${host}b" netns "$MM_PREFIX-sw"
            ip -n "$MM_PREFIX-sw" link set "$MM_PREFIX${host}b" master br0 up
            ip -n "$MM_PREFIX-h$host" link set lo up
            ip -n "$MM_PREFIX-h$host" addr add "10.77.0.$host/24" dev "$MM_PREFIX${host}a"
            ip -n "$MM_PREFIX-h$host" link set "$MM_PREFIX${host}a" up
        fi
    done
    for ((host = 1; host <= count; host++)); do
        mm_write_config "$host" "$count"
        mm_spawn "$host" "$MM_ROOT/h$host/syncthing" env HOME="$MM_ROOT/h$host" STNOUPGRADE=1 STNODEFAULTFOLDER=1 \
            syncthing serve --home="$MM_ROOT/h$host/st" --no-browser --no-restart --no-upgrade
    done
    deadline=$((SECONDS + 60))
    for ((host = 1; host <= count; host++)); do
        until mm_connected "$host"; do
            ((SECONDS < deadline)) || { mm_log "host $host did not connect to every other within 60 s (see $MM_ROOT/h$host/syncthing.log)"; return 1; }
            sleep 0.5
        done
    done
    mm_log "$count hosts up ($mode), Syncthing connected"
}

# Whether host I's Syncthing answers and is connected to every other host.
mm_connected() {
    local host=$1 answer
    answer=$(mm_rest "$host" GET /rest/system/connections 2>/dev/null) || return 1
    python3 -c '
import json, sys
connections = json.loads(sys.argv[1])["connections"]
others = [line.strip() for line in sys.argv[2:] if line.strip()]
sys.exit(0 if all(connections.get(device, {}).get("connected") for device in others) else 1)
' "$answer" $(for ((j = 1; j <= MM_HOSTS; j++)); do ((j == host)) || cat "$MM_ROOT/h$j/id"; done)
}

# Waits (at most $2 seconds, default 60) until host I has pulled everything it knows of and
# every connected host has everything it offers.
mm_idle() {
    local host=$1 limit=${2:-60} deadline answer
    deadline=$((SECONDS + limit))
    while ((SECONDS < deadline)); do
        answer=$(mm_rest "$host" GET "/rest/db/status?folder=$MM_FOLDER" 2>/dev/null) || { sleep 0.5; continue; }
        if python3 -c '
import json, sys
status = json.loads(sys.argv[1])
sys.exit(0 if status.get("state") == "idle" and status.get("needTotalItems", 1) == 0 else 1)
' "$answer"; then return 0; fi
        sleep 0.5
    done
    mm_log "host $host still busy after $limit s"
    return 1
}

mm_cut() {
    local host=$1
    if [[ $MM_MODE == netns ]]; then
        ip -n "$MM_PREFIX-sw" link set "$MM_PREFIX${host}b" down
    else
        mm_rest "$host" POST /rest/system/pause >/dev/null
    fi
    mm_log "host $host cut off"
}

mm_heal() {
    local host=$1 deadline
    if [[ $MM_MODE == netns ]]; then
        ip -n "$MM_PREFIX-sw" link set "$MM_PREFIX${host}b" up
    else
        mm_rest "$host" POST /rest/system/resume >/dev/null
    fi
    deadline=$((SECONDS + 90))
    until mm_connected "$host"; do
        ((SECONDS < deadline)) || { mm_log "host $host did not reconnect within 90 s"; return 1; }
        sleep 0.5
    done
    mm_log "host $host back"
}

# Starts CMD on host I in a session of its own, output in BASE.log, its id in BASE.pid (the
# session's id: Syncthing runs a monitor and a child, and both belong to it).
mm_spawn() {
    local host=$1 base=$2; shift 2
    if [[ $MM_MODE == netns ]]; then
        setsid ip netns exec "$MM_PREFIX-h$host" "$@" >"$base.log" 2>&1 </dev/null &
    else
        setsid "$@" >"$base.log" 2>&1 </dev/null &
    fi
    echo $! >"$base.pid"
}

# Stops the session a spawned process leads, by its id: SIGTERM, then SIGKILL after 10 s.
mm_stop_pid() {
    local pid=$1 waited=0
    kill -0 -- "-$pid" 2>/dev/null || return 0
    kill -TERM -- "-$pid" 2>/dev/null || true
    while kill -0 -- "-$pid" 2>/dev/null && ((waited < 100)); do sleep 0.1; waited=$((waited + 1)); done
    kill -KILL -- "-$pid" 2>/dev/null || true
}

mm_down() {
    [[ -f $MM_ROOT/env ]] || return 0
    mm_load || return 0
    local file host
    for file in "$MM_ROOT"/h*/*.pid; do [[ -f $file ]] && mm_stop_pid "$(cat "$file")"; done
    if [[ $MM_MODE == netns ]]; then
        for ((host = 1; host <= MM_HOSTS; host++)); do ip netns del "$MM_PREFIX-h$host" 2>/dev/null || true; done
        ip netns del "$MM_PREFIX-sw" 2>/dev/null || true
    fi
    [[ -n ${MM_KEEP:-} ]] || rm -rf "$MM_ROOT"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    command=${1:-}
    shift || true
    case $command in
        up) mm_up "${1:-2}" ;;
        down) mm_down ;;
        cut) mm_load && mm_cut "$1" ;;
        heal) mm_load && mm_heal "$1" ;;
        idle) mm_load && mm_idle "$1" "${2:-60}" ;;
        exec) mm_load && { host=$1; shift; mm_exec "$host" "$@"; } ;;
        env) mm_load && printf 'MM_ROOT=%s\nMM_MODE=%s\nMM_HOSTS=%s\n' "$MM_ROOT" "$MM_MODE" "$MM_HOSTS" ;;
        *) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
fi
