#!/usr/bin/env bash
# End-to-end: peers on several emulated machines whose cloud folders Syncthing carries
# (scripts/syncthing-hosts.sh). Each host runs a `ubiq watch` peer (device w) and takes edits
# through a second device (e): a device is locked by the process that owns it, so the watch
# keeps its device and every edit is a short `ubiq` run on the other one, as an app beside a
# background peer would. The run removes the content, saves on every host, measures save →
# visible across hosts, rolls baselines, switches every device to another account and back,
# and (with --cut) takes the last host off the network while everyone saves and rolls, then
# reconnects it. Converged means byte-identical `ubiq dump --json` on every device, holding
# every ID that a successful `ubiq insert` printed since the removal; no conflict copy is ever
# considered for import.
#
#   scripts/multi-machine-test.sh [HOSTS] [--cut]     default: 2 hosts
#   scripts/multi-machine-test.sh scenarios           built-in scenarios on Syncthing hosts
#   scripts/multi-machine-test.sh ci                  2 hosts, 3 hosts with one cut off, then the scenarios
#
# UBIQ names the ubiq binary (default: the debug build, built if missing). Prints one
# "skip:" line and exits 0 where the machine cannot run Syncthing hosts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/syncthing-hosts.sh

if [[ ${1:-} == ci ]]; then
    first="${TMPDIR:-/tmp}/multi-machine-ci.$$"
    "$0" 2 | tee "$first"
    # The first run says once when this machine cannot run hosts; the others would say it again.
    if grep -q 'skip:' "$first"; then rm -f "$first"; exit 0; fi
    rm -f "$first"
    "$0" 3 --cut
    "$0" scenarios
    exit 0
fi

if [[ -z ${UBIQ:-} ]]; then
    UBIQ="$(swift build --show-bin-path)/ubiq"
    [[ -x $UBIQ ]] || swift build --product ubiq >/dev/null
fi
[[ -x $UBIQ ]] || { echo "multi-machine: no ubiq binary at $UBIQ" >&2; exit 1; }

if [[ ${1:-} == scenarios ]]; then
    # The scenario runner with each device on a Syncthing host of its own (Docs/Scenarios.md):
    # an account switch over three hosts that carry only their device's account, a week with
    # one host cut off and every merge policy, and content removed while peers run. Each run
    # checks its invariants at every step and fails with the seed and work directory to replay.
    for scenario in account-switch offline-edits content-removed; do
        "$UBIQ" scenario run "$scenario" --syncthing | grep -v '^    events:'
    done
    exit 0
fi
HOSTS=${1:-2}
CUT=${2:-}
TIMEOUT=${MM_WAIT:-120}          # the longest any one wait may take, in seconds

say() { echo "multi-machine[$HOSTS${CUT:+ cut}]: $*"; }
fail() { say "FAILED: $*"; exit 1; }

cleanup() {
    local status=$?
    if ((status != 0)) && [[ -f $MM_ROOT/env ]]; then
        say "keeping logs in $MM_ROOT.failed"
        rm -rf "$MM_ROOT.failed"
        cp -r "$MM_ROOT" "$MM_ROOT.failed" 2>/dev/null || true
    fi
    mm_down
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

up_status=0
mm_up "$HOSTS" >"${TMPDIR:-/tmp}/multi-machine-up.$$" || up_status=$?
if grep -q '^skip:' "${TMPDIR:-/tmp}/multi-machine-up.$$"; then
    say "$(cat "${TMPDIR:-/tmp}/multi-machine-up.$$")"
    rm -f "${TMPDIR:-/tmp}/multi-machine-up.$$"
    trap - EXIT
    exit 0
fi
rm -f "${TMPDIR:-/tmp}/multi-machine-up.$$"
((up_status == 0)) || fail "the hosts did not come up"
mm_load
say "hosts on $MM_MODE"

# ubiq on host H with device D (w or e): on H ARGS…
on() {
    local host=$1 device=$2; shift 2
    mm_exec "$host" "$UBIQ" "$@" --cloud "$MM_ROOT/h$host/cloud" --device "$MM_ROOT/h$host/devices/$device"
}
now() { date +%s.%N; }

IDS=$MM_ROOT/ids            # every ID an insert printed since the content removal
: >"$IDS"
insert() {   # insert HOST TITLE → appends the printed ID to $IDS
    local id
    id=$(on "$1" e insert Note "title=$2") || fail "insert on host $1: $id"
    echo "$id" >>"$IDS"
    echo "$id"
}

start_watch() {
    local host=$1
    mm_spawn "$host" "$MM_ROOT/h$host/watch" "$UBIQ" watch --log-level 3 --cloud "$MM_ROOT/h$host/cloud" --device "$MM_ROOT/h$host/devices/w"
    local deadline=$((SECONDS + 30))
    until grep -q '^watching ' "$MM_ROOT/h$host/watch.log" 2>/dev/null; do
        ((SECONDS < deadline)) || fail "watch on host $host did not start"
        sleep 0.1
    done
}

# Waits until the watch of HOST has printed LINE (a fixed string) after line number FROM.
wait_watch() {
    local host=$1 line=$2 from=${3:-0} deadline=$((SECONDS + TIMEOUT))
    # awk, not tail | grep -q: with pipefail, grep leaving early makes tail's SIGPIPE a failure.
    until awk -v from="$from" -v line="$line" 'NR > from && index($0, line) { found = 1; exit } END { exit !found }' "$MM_ROOT/h$host/watch.log"; do
        ((SECONDS < deadline)) || fail "host $host's watch never printed '$line'"
        sleep 0.05
    done
}

# Syncs every editor until all their dumps are equal and hold every ID in $IDS (and, with
# EXPECT_EMPTY=1, nothing at all). Prints how long it took.
converge() {
    local label=$1 start=$SECONDS host first ok
    while true; do
        ok=1
        for ((host = 1; host <= HOSTS; host++)); do
            on "$host" e sync >/dev/null 2>&1 || true
            on "$host" e dump --json >"$MM_ROOT/h$host/dump.json" 2>/dev/null || ok=0
        done
        first=$MM_ROOT/h1/dump.json
        for ((host = 2; host <= HOSTS; host++)); do cmp -s "$first" "$MM_ROOT/h$host/dump.json" || ok=0; done
        if ((ok)); then
            if [[ ${EXPECT_EMPTY:-0} == 1 ]]; then
                [[ $(cat "$first") == "[]" ]] || ok=0
            else
                while read -r id; do grep -qF "\"id\":\"$id\"" "$first" || { ok=0; break; }; done <"$IDS"
            fi
        fi
        ((ok)) && break
        ((SECONDS - start < TIMEOUT)) || fail "$label: the editors did not converge within $TIMEOUT s"
        sleep 1
    done
    say "$label: converged in $((SECONDS - start)) s ($(grep -o '"id":' "$first" | wc -l | tr -d ' ') objects)"
}

# 1. Devices and watches.
for ((host = 1; host <= HOSTS; host++)); do
    for device in w e; do on "$host" "$device" device init --user "h$host$device" >/dev/null; done
    start_watch "$host"
done

# 2. Content from before, then its removal: everyone starts over empty.
for ((host = 1; host <= HOSTS; host++)); do insert "$host" "before the removal, host $host" >/dev/null; done
converge "first saves"
on 2 e remove-content --yes >/dev/null
: >"$IDS"
EXPECT_EMPTY=1 converge "content removed"
for ((host = 1; host <= HOSTS; host++)); do wait_watch "$host" "content removed by another peer"; done

# Saves on every host at once: N on each.
save_everywhere() {
    local count=$1 label=$2 host pids=()
    for ((host = 1; host <= HOSTS; host++)); do
        (for ((index = 1; index <= count; index++)); do insert "$host" "$label: host $host note $index" >/dev/null; done) &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid" || fail "a save failed"; done
}

# 3. Saves on every host at once, and save → visible across hosts, measured on the watches.
save_everywhere 3 "at once"
LATENCIES=$MM_ROOT/latencies
: >"$LATENCIES"
for probe in 1 2 3 4 5 6; do
    from=$(((probe - 1) % HOSTS + 1))
    to=$((from % HOSTS + 1))
    mark=$(wc -l <"$MM_ROOT/h$to/watch.log")
    id=$(insert "$from" "probe $probe")
    saved=$(now)
    wait_watch "$to" "inserted $id" "$mark"
    python3 -c "print(f'{$(now) - $saved:.3f}')" >>"$LATENCIES"
done
converge "saves on every host"
# Syncthing's own time for a plain file between the same hosts: written under a temporary name
# and renamed, as our files are, and seen once it is there on the other host.
PLAIN=$MM_ROOT/plain-latencies
: >"$PLAIN"
for probe in 1 2 3 4 5 6; do
    from=$(((probe - 1) % HOSTS + 1))
    to=$((from % HOSTS + 1))
    name="plain-probe-$probe.txt"
    echo "probe $probe" >"$MM_ROOT/h$from/cloud/.$name.tmp"
    mv "$MM_ROOT/h$from/cloud/.$name.tmp" "$MM_ROOT/h$from/cloud/$name"
    saved=$(now)
    deadline=$((SECONDS + TIMEOUT))
    until [[ -f $MM_ROOT/h$to/cloud/$name ]]; do
        ((SECONDS < deadline)) || fail "a plain file never reached host $to"
        sleep 0.01
    done
    python3 -c "print(f'{$(now) - $saved:.3f}')" >>"$PLAIN"
done
for ((host = 1; host <= HOSTS; host++)); do rm -f "$MM_ROOT/h$host/cloud"/plain-probe-*.txt; done

# 4. An update and a delete of another host's objects.
other=$(grep -m1 . "$IDS")
on 2 e sync >/dev/null
on 2 e update "$other" "title=changed on host 2" >/dev/null || fail "update on host 2"
victim=$(tail -n1 "$IDS")
on 1 e sync >/dev/null
on 1 e delete "$victim" >/dev/null || fail "delete on host 1"
grep -vxF "$victim" "$IDS" >"$IDS.kept" || true
mv "$IDS.kept" "$IDS"
converge "update and delete"
grep -qF '"title":"changed on host 2"' "$MM_ROOT/h1/dump.json" || fail "the update did not reach host 1"
grep -qF "\"id\":\"$victim\"" "$MM_ROOT/h1/dump.json" && fail "the deleted object is back"

# 5. A baseline, rolled on host 1 (and, with --cut, on the host cut off too).
on 1 e sync >/dev/null
rolled=$(on 1 e baseline roll --force)
[[ $rolled == rolled* ]] || fail "host 1 could not roll a baseline: $rolled"
if [[ $CUT == --cut ]]; then
    off=$HOSTS
    mm_cut "$off"
    save_everywhere 3 "while host $off is away"
    on "$off" e sync >/dev/null
    on "$off" e baseline roll --force >/dev/null || true   # both sides roll: the baselines collide on reconnection
    on 1 e sync >/dev/null
    on 1 e baseline roll --force >/dev/null || true
    sleep 3
    mm_heal "$off"
    converge "host $off reconnected"
else
    converge "baseline rolled"
fi
# A newcomer on host 2 starts from the baseline.
on 2 n device init --user h2n >/dev/null
on 2 n sync >/dev/null
on 2 n dump --json >"$MM_ROOT/h2/newcomer.json"
cmp -s "$MM_ROOT/h2/newcomer.json" "$MM_ROOT/h1/dump.json" || fail "the newcomer on host 2 does not hold what the others hold"

# 6. Every device signs in to account "work" (the watches follow), saves there, and comes back.
for ((host = 1; host <= HOSTS; host++)); do
    for device in w e; do on "$host" "$device" account sign-in work >/dev/null; done
done
for ((host = 1; host <= HOSTS; host++)); do wait_watch "$host" "account changed to 'work'"; done
cp "$IDS" "$IDS.default"
: >"$IDS"
for ((host = 1; host <= HOSTS; host++)); do insert "$host" "work, host $host" >/dev/null; done
converge "account work"
for ((host = 1; host <= HOSTS; host++)); do
    for device in w e; do on "$host" "$device" account sign-in default >/dev/null; done
done
for ((host = 1; host <= HOSTS; host++)); do wait_watch "$host" "account changed to 'default'"; done
mv "$IDS.default" "$IDS"
converge "back on account default"

# 7. The watches converged on their own: every ID reached every watch; then they stop and
#    their dumps equal the editors'.
for ((host = 1; host <= HOSTS; host++)); do
    while read -r id; do wait_watch "$host" "inserted $id"; done <"$IDS"
done
sleep 2   # the last receipts and baselines settle
for ((host = 1; host <= HOSTS; host++)); do mm_stop_pid "$(cat "$MM_ROOT/h$host/watch.pid")"; done
for ((host = 1; host <= HOSTS; host++)); do
    grep -q '^stopped' "$MM_ROOT/h$host/watch.log" || fail "host $host's watch did not stop cleanly"
    on "$host" w dump --json >"$MM_ROOT/h$host/watch.json"
    cmp -s "$MM_ROOT/h$host/watch.json" "$MM_ROOT/h1/dump.json" || fail "host $host's watch device differs from the editors"
done

# 8. No conflict copy was ever considered for import; say what the sync tool left.
if grep -h 'considering .*\(sync-conflict\|conflicted copy\|\.syncthing\.\)' "$MM_ROOT"/h*/watch.log; then
    fail "a watch considered a sync tool's file for import"
fi
copies=$(find "$MM_ROOT"/h*/cloud -name '*sync-conflict*' | wc -l | tr -d ' ')
# doctor exits 1 when it finds something: that is the figure this line reports, not a failure.
doctor_json=$(on 1 e doctor --json) || (($? == 1)) || fail "doctor on host 1 failed"
kinds=$(printf '%s' "$doctor_json" | python3 -c 'import json,sys; print(" ".join(sorted({f["kind"] for f in json.load(sys.stdin)["findings"]})) or "none")')
say "conflict copies in the clouds: $copies (never imported); doctor on host 1: $kinds"
say "every device holds the same $(wc -l <"$IDS" | tr -d ' ') saved notes"
python3 - "$LATENCIES" "$PLAIN" "$HOSTS${CUT:+ cut}" "$MM_MODE" <<'PY'
import statistics, sys
def figures(path, what):
    values = [float(line) for line in open(path) if line.strip()]
    return f"median {statistics.median(values):.2f} s, min {min(values):.2f} s, max {max(values):.2f} s over {len(values)} {what}"
print(f"multi-machine[{sys.argv[3]}]: save -> visible on another host ({sys.argv[4]}, Syncthing fsWatcherDelayS=1): "
      f"{figures(sys.argv[1], 'saves')}; a plain file alone: {figures(sys.argv[2], 'files')}")
PY
say "passed"
