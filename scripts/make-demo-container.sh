#!/usr/bin/env bash
# Generates the demo container: three devices of one account (iphone, ipad, mac) sharing a
# cloud, with a baseline, a conflict and a quarantined file.
#   scripts/make-demo-container.sh [OUT]      (default: containers/demo)
# UBIQ may name the ubiq binary; by default the debug build is used (built if needed).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-containers/demo}
if [[ -z "${UBIQ:-}" ]]; then
    swift build --product ubiq >/dev/null
    UBIQ="$(swift build --show-bin-path)/ubiq"
fi
rm -rf "$out"
mkdir -p "$out/devices"
export UBIQUITY_CLOUD="$out/cloud"
ubiq() { "$UBIQ" "$@" >/dev/null; }
on() { local device=$1; shift; ubiq "$@" --device "$out/devices/$device"; }

for device in iphone ipad mac; do on "$device" device init --user ann; done
on iphone insert Folder --id home name=Home
on iphone insert Note --id groceries title=Groceries body=milk pinned=true folder=Folder/home
on iphone insert Tag --id food name=food
on iphone relate Note/groceries tags Tag/food
for device in ipad mac; do on "$device" sync; done
on mac insert Note --id trip "title=Trip to Lisbon" folder=Folder/home
for device in iphone ipad mac; do on "$device" sync; done
on iphone baseline roll --force

# A conflict: the iPad and the Mac retitle the same note without seeing each other.
on ipad update Note/groceries "title=Groceries for Sunday"
on mac update Note/groceries "title=Shopping"
for device in iphone ipad mac iphone ipad mac; do on "$device" sync; done

# A damaged file: a copy of one of the Mac's logs, cut short, under the next number.
mac_folder=$(find "$out/cloud" -type d -path '*/ann~*/Notes/*' | while read -r folder; do
    if ls "$folder" | grep -q '^0000000002-'; then echo "$folder"; fi; done | head -n 1)
first_log=$(ls "$mac_folder" | grep '\.1\.cdt$' | head -n 1)
head -c 60 "$mac_folder/$first_log" > "$mac_folder/0000000099-00000000-0000-0000-0000-000000000000.1.cdt"
on iphone sync
on ipad sync

# Leave nothing that belongs to a running process. Each device keeps its cloud as a path
# relative to itself (../../cloud), so a copy (cp -r containers/demo /tmp/demo) works with the
# copy's cloud and refuses any other.
find "$out" \( -name '.lock' -o -name '.lock.nosync' \) -delete
echo "demo container written to $out"
