#!/usr/bin/env bash
# Installs ubiq under PREFIX: the release binary, its man page and its shell completions.
#   PREFIX/bin/ubiq                                        (swift build -c release)
#   PREFIX/share/man/man1/ubiq.1                           (argument-parser's generate-manual)
#   PREFIX/share/bash-completion/completions/ubiq
#   PREFIX/share/zsh/site-functions/_ubiq
#   PREFIX/share/fish/vendor_completions.d/ubiq.fish
#   scripts/install.sh PREFIX      (e.g. ~/.local or /usr/local)
# UBIQ may name the ubiq binary to install and GENERATE_MANUAL argument-parser's generate-manual
# tool; by default the release build of ubiq and the debug build of generate-manual are used
# (built if needed). SWIFT_BUILD_FLAGS is passed to the release build (e.g. --traits FastDeflate).
set -euo pipefail
if [[ $# -ne 1 || -z "$1" ]]; then
    echo "usage: $0 PREFIX   (installs PREFIX/bin/ubiq, its man page and the shell completions)" >&2
    exit 64
fi
mkdir -p "$1"
prefix=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
if [[ -z "${UBIQ:-}" ]]; then
    # shellcheck disable=SC2086  # the flags are words
    swift build -c release --product ubiq ${SWIFT_BUILD_FLAGS:-} >/dev/null
    UBIQ="$(swift build -c release --show-bin-path)/ubiq"
fi
if [[ -z "${GENERATE_MANUAL:-}" ]]; then
    GENERATE_MANUAL="$(swift build --show-bin-path)/generate-manual"
    [[ -x "$GENERATE_MANUAL" ]] || swift build --product generate-manual >/dev/null
fi

bin="$prefix/bin"
man="$prefix/share/man/man1"
bash_dir="$prefix/share/bash-completion/completions"
zsh_dir="$prefix/share/zsh/site-functions"
fish_dir="$prefix/share/fish/vendor_completions.d"
mkdir -p "$bin" "$man" "$bash_dir" "$zsh_dir" "$fish_dir"

# Through a temporary name and a rename: a ubiq running from PREFIX/bin keeps its old file.
install -m 0755 "$UBIQ" "$bin/.ubiq.installing"
mv -f "$bin/.ubiq.installing" "$bin/ubiq"

# generate-manual runs `ubiq --experimental-dump-help` and writes mdoc. It keeps the blank lines
# of multi-paragraph discussions, which mdoc warns about: they become paragraph breaks.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# SOURCE_DATE_EPOCH, when set, dates the page (reproducible packages); else today.
date_option=()
if [[ -n "${SOURCE_DATE_EPOCH:-}" ]]; then date_option=(--date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)"); fi
"$GENERATE_MANUAL" "$bin/ubiq" "${date_option[@]}" --output-directory "$scratch" >/dev/null
sed 's/^$/.Pp/' "$scratch/ubiq.1" > "$man/ubiq.1"

"$bin/ubiq" --generate-completion-script bash > "$bash_dir/ubiq"
"$bin/ubiq" --generate-completion-script zsh > "$zsh_dir/_ubiq"
"$bin/ubiq" --generate-completion-script fish > "$fish_dir/ubiq.fish"
for file in "$bin/ubiq" "$man/ubiq.1" "$bash_dir/ubiq" "$zsh_dir/_ubiq" "$fish_dir/ubiq.fish"; do echo "installed $file"; done
case ":$PATH:" in
    *":$bin:"*) ;;
    *) echo "note: $bin is not on PATH; add it (export PATH=\"$bin:\$PATH\") to run ubiq by name" ;;
esac
