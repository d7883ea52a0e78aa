#!/usr/bin/env bash
# Shows that a change left the simulation's behaviour alone: runs the fuzz scenarios of seeds
# A..B on both transports with two builds of ubiq and compares their JSON results byte for
# byte (a scenario's run, peer IDs included, is a function of its seed).
#
# Usage: scripts/scenario-json-diff.sh OLD-UBIQ NEW-UBIQ [A..B]   (default seeds 1..40)
# Prints one line per seed and transport that differs, then "N identical, M different";
# exits 1 when any differs. The JSON of each differing run is kept in the printed folder.
set -euo pipefail
old="${1:?usage: scenario-json-diff.sh OLD-UBIQ NEW-UBIQ [A..B]}"
new="${2:?usage: scenario-json-diff.sh OLD-UBIQ NEW-UBIQ [A..B]}"
range="${3:-1..40}"
first="${range%..*}" last="${range#*..}"
work=$(mktemp -d)
same=0 different=0
for transport in icloud file-sync; do
    for seed in $(seq "$first" "$last"); do
        scenario="$work/$transport-$seed.scenario"
        "$new" scenario fuzz --seeds "$seed" --print > "$scenario"
        "$old" scenario run "$scenario" --transport "$transport" --json > "$work/$transport-$seed.old.json" 2>/dev/null || true
        "$new" scenario run "$scenario" --transport "$transport" --json > "$work/$transport-$seed.new.json" 2>/dev/null || true
        if [ ! -s "$work/$transport-$seed.old.json" ]; then
            different=$((different + 1))
            echo "seed $seed ($transport): the old build printed no JSON"
        elif cmp -s "$work/$transport-$seed.old.json" "$work/$transport-$seed.new.json"; then
            same=$((same + 1))
            rm "$work/$transport-$seed".*
        else
            different=$((different + 1))
            echo "seed $seed ($transport): the JSON differs ($work/$transport-$seed.old.json, .new.json)"
        fi
    done
done
echo "$same identical, $different different"
[ "$different" -eq 0 ] && rm -rf "$work"
[ "$different" -eq 0 ]
