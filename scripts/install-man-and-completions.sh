#!/usr/bin/env bash
# Installs ubiq's man page and its bash, zsh and fish completions under PREFIX:
#   PREFIX/share/man/man1/ubiq.1                           (argument-parser's generate-manual)
#   PREFIX/share/bash-completion/completions/ubiq
#   PREFIX/share/zsh/site-functions/_ubiq
#   PREFIX/share/fish/vendor_completions.d/ubiq.fish
#   scripts/install-man-and-completions.sh PREFIX      (e.g. ~/.local or /usr/local)
# UBIQ may name the ubiq binary and GENERATE_MANUAL argument-parser's generate-manual tool; by
# default the debug builds are used (built if needed).
set -euo pipefail
if [[ $# -ne 1 || -z "$1" ]]; then
    echo "usage: $0 PREFIX   (installs PREFIX/share/man/man1/ubiq.1 and the shell completions)" >&2
    exit 64
fi
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
if [[ -z "${UBIQ:-}" ]]; then
    swift build --product ubiq >/dev/null
    UBIQ="$(swift build --show-bin-path)/ubiq"
fi
if [[ -z "${GENERATE_MANUAL:-}" ]]; then
    GENERATE_MANUAL="$(swift build --show-bin-path)/generate-manual"
    [[ -x "$GENERATE_MANUAL" ]] || swift build --product generate-manual >/dev/null
fi

man="$prefix/share/man/man1"
bash_dir="$prefix/share/bash-completion/completions"
zsh_dir="$prefix/share/zsh/site-functions"
fish_dir="$prefix/share/fish/vendor_completions.d"
mkdir -p "$man" "$bash_dir" "$zsh_dir" "$fish_dir"

# generate-manual runs `ubiq --experimental-dump-help` and writes mdoc. It keeps the blank lines
# of multi-paragraph discussions, which mdoc warns about: they become paragraph breaks.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# SOURCE_DATE_EPOCH, when set, dates the page (reproducible packages); else today.
date_option=()
if [[ -n "${SOURCE_DATE_EPOCH:-}" ]]; then date_option=(--date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)"); fi
"$GENERATE_MANUAL" "$UBIQ" "${date_option[@]}" --output-directory "$scratch" >/dev/null
sed 's/^$/.Pp/' "$scratch/ubiq.1" > "$man/ubiq.1"

"$UBIQ" --generate-completion-script bash > "$bash_dir/ubiq"
"$UBIQ" --generate-completion-script zsh > "$zsh_dir/_ubiq"
"$UBIQ" --generate-completion-script fish > "$fish_dir/ubiq.fish"
for file in "$man/ubiq.1" "$bash_dir/ubiq" "$zsh_dir/_ubiq" "$fish_dir/ubiq.fish"; do echo "installed $file"; done
