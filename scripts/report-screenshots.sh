#!/usr/bin/env bash
# Renders the scenario report of a few runs and takes a screenshot of each in headless
# Chromium, for a person to look at (Docs/Scenarios.md, "The report"). The checks that can
# fail are tests: TimelineReportTests reads the drawings back, TimelineBrowserTests lays them
# out in Chromium and measures them.
#
#   scripts/report-screenshots.sh [OUT]     # default OUT: .build/report-screenshots
#
# For each run OUT holds NAME.html (the page), NAME.png (the page, 1400 pixels wide, top
# 900 pixels) and NAME-timeline.png (the page's SVG, whole). The runs: account-switch and churn
# (8 devices) on both transports, first-launch, content-removed, and a run that fails (a
# scenario with a wrong expectation). Churn runs its 2,000 random steps on the emulated iCloud
# (minutes in a debug build) and 300 on the file-sync engine; CHURN_STEPS=N sets both.
# UBIQ=path uses that binary instead of building one. Needs chromium (apt-get install chromium).
# Docs/report-account-switch.png is account-switch-timeline.png made small by pngquant
# (apt-get install pngquant): pngquant --quality=60-85 --speed 1 --output Docs/report-account-switch.png OUT/account-switch-timeline.png
set -euo pipefail

cd "$(dirname "$0")/.."
out=${1:-.build/report-screenshots}
mkdir -p "$out"
out=$(cd "$out" && pwd)

chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $chromium ]]; then
    echo "report-screenshots: chromium is not installed (apt-get install chromium)" >&2
    exit 2
fi
if [[ -z ${UBIQ:-} ]]; then
    swift build --product ubiq >&2
    UBIQ=$(swift build --show-bin-path)/ubiq
fi

profile=$(mktemp -d)  # Chromium's profile and the runs' work directories
trap 'rm -rf "$profile"' EXIT

# shot FILE PNG WIDTH HEIGHT
shot() {
    # Without the last two flags the lower part of a long page can be captured before it is painted.
    timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$profile/chromium" \
        --window-size="$3,$4" --screenshot="$2" --run-all-compositor-stages-before-draw --virtual-time-budget=3000 \
        "file://$1" >/dev/null 2>&1
}

# render NAME EXPECTED-STATUS SCENARIO [OPTIONS…]
render() {
    local name=$1 expected=$2
    shift 2
    local status=0
    # The work directory (kept by a failing run) goes with the temporary folder.
    timeout 1800 "$UBIQ" scenario run "$@" --work "$profile/work-$name" --report "$out/$name.html" >"$out/$name.txt" 2>&1 || status=$?
    if [[ $status != "$expected" ]]; then
        echo "report-screenshots: $name exited $status, not $expected (see $out/$name.txt)" >&2
        exit 1
    fi
    shot "$out/$name.html" "$out/$name.png" 1400 900
    # The page's SVG alone, at its own size.
    sed -n '/^<svg /,/^<\/svg>/p' "$out/$name.html" >"$out/$name.svg"
    local size
    size=$(grep -o '<svg [^>]*' "$out/$name.svg" | head -1 | sed -E 's/.* width="([0-9.]+)" height="([0-9.]+)".*/\1 \2/')
    read -r width height <<<"$size"
    shot "$out/$name.svg" "$out/$name-timeline.png" "${width%.*}" "${height%.*}"
    rm -f "$out/$name.svg"
    echo "$out/$name.png  $out/$name-timeline.png"
}

failing="$out/wrong-count.scenario"
cat >"$failing" <<'EOF'
# Fails on purpose: the Mac is expected to hold a note nobody saved.
scenario wrong-count
seed 3
devices iphone mac
faults delay=1s..30s
all launch
wait 5m
iphone insert Note a title="one"
iphone save
mac insert Note b title="two"
mac save
settle
mac expect count Note 3
EOF

churn=()
if [[ -n ${CHURN_STEPS:-} ]]; then churn=(--steps "$CHURN_STEPS"); fi

render account-switch 0 account-switch
render account-switch-file-sync 0 account-switch --transport file-sync
render first-launch 0 first-launch
render content-removed 0 content-removed
render failing 1 "$failing"
render churn 0 churn "${churn[@]}"
render churn-file-sync 0 churn --transport file-sync --steps "${CHURN_STEPS:-300}"
