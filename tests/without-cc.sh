#!/bin/sh
# The test suite with the C compiler hidden from PATH (docs/testing.md, "Without a C
# compiler"). Everything is built first, with the compiler (rustc links through it);
# then the tests run with a PATH that holds every program of the current one except the
# C compilers, and CC unset: aot and c are unavailable, and every test still passes.
# Doctests are left out: rustdoc links each one when the tests run.
set -eu
cd "$(dirname "$0")/.."
# The riders as the conformance runner builds them (it cannot without the compiler),
# then the tests: in this order, as the workspace's tests resolve the riders' features
# differently and cargo would rebuild them.
cargo build --quiet -p datalove -p datalove-rider-std -p datalove-probe-rider
cargo test --workspace --lib --bins --tests --no-run --quiet
hidden=$(mktemp -d)
trap 'rm -rf "$hidden"' EXIT
old_ifs=$IFS
IFS=:
for dir in $PATH; do
    for program in "$dir"/*; do
        name=$(basename "$program")
        case "$name" in
            cc | c89 | c99 | gcc | gcc-* | *-gcc | *-gcc-* | clang | clang-* | *-cc | tcc) continue ;;
        esac
        if [ -x "$program" ] && [ ! -e "$hidden/$name" ]; then
            ln -s "$program" "$hidden/$name"
        fi
    done
done
IFS=$old_ifs
env -u CC PATH="$hidden" cargo test --workspace --lib --bins --tests "$@"
