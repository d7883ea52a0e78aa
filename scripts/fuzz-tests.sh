#!/usr/bin/env bash
# Fresh random seeds for the seeded test generators (Docs/Scenarios.md, "Fuzzing").
#
# `swift test` runs every randomized test on its fixed list of seeds only, so CI never fails
# by chance. This script explores instead: each round draws a new seed from /dev/urandom,
# prints it, and runs the seeded tests on that seed alone (UBIQUITY_TEST_SEED=N with
# UBIQUITY_TEST_SEED_ONLY=1). A failing seed is printed with the command that replays it and
# its output is kept; add it to the test's fixed list once it is understood.
#
# Usage: scripts/fuzz-tests.sh [-n ROUNDS] [--filter REGEX] [--keep-going]
#   -n ROUNDS      how many seeds to draw (default 10)
#   --filter REGEX which tests (swift test --filter; default: every seeded generator)
#   --keep-going   collect every failing seed instead of stopping at the first
# Exits 1 when a seed failed. The last line is "N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=10
keep_going=0
# Every test whose cases come from SeededGenerator.testSeeds.
filter='threeMachinesThroughAFileSyncEngineConverge|randomOperationsOnFivePeersConverge|fivePeersChurningThroughFiveThousandSavesStayBoundedAndConverge|randomScenariosKeepEveryInvariant|killedSoakLosesNothingAndPublishesNothingUnsaved|randomCorruptions|randomDatesRoundTripExactlyThroughXML|randomRealsRoundTripExactlyThroughXML|realisticDatesRoundTripExactlyThroughBinary'

while (($#)); do
    case "$1" in
        -n) rounds="${2:?-n takes a number of rounds}"; shift 2 ;;
        --filter) filter="${2:?--filter takes a regular expression}"; shift 2 ;;
        --keep-going) keep_going=1; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fuzz-tests: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ "$rounds" =~ ^[0-9]+$ ]] || { echo "fuzz-tests: -n takes a number, not '$rounds'" >&2; exit 2; }

logs=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-tests.XXXXXX")
swift build --build-tests >"$logs/build.log" 2>&1 || { cat "$logs/build.log" >&2; exit 1; }
rm "$logs/build.log"
passed=0
failed=()
for ((round = 1; round <= rounds; round++)); do
    seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
    started=$SECONDS
    if UBIQUITY_TEST_SEED="$seed" UBIQUITY_TEST_SEED_ONLY=1 swift test --skip-build --filter "$filter" >"$logs/$seed.log" 2>&1; then
        if grep -q 'Test run with 0 tests' "$logs/$seed.log"; then
            echo "fuzz-tests: no test matches --filter '$filter'" >&2
            rm -rf "$logs"
            exit 2
        fi
        echo "seed $seed: passed, $((SECONDS - started)) s"
        passed=$((passed + 1))
        rm -f "$logs/$seed.log"
    else
        echo "seed $seed: FAILED, $((SECONDS - started)) s (output: $logs/$seed.log)"
        grep -m 3 -E '✘ Test .*(recorded an issue|failed)' "$logs/$seed.log" | cut -c1-300 || true
        failed+=("$seed")
        ((keep_going)) || break
    fi
done
for seed in "${failed[@]}"; do
    echo "replay: UBIQUITY_TEST_SEED=$seed UBIQUITY_TEST_SEED_ONLY=1 swift test --filter '$filter'"
done
((${#failed[@]})) || rmdir "$logs"
echo "$passed passed, ${#failed[@]} failed"
((${#failed[@]} == 0))
