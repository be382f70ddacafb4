#!/bin/sh
# Checks that every SIMD kernel is one function whatever the codegen-unit
# count of the crate that depends on mbhash: built as a dependency with
# Cargo's default release profile (16 codegen units), no `#[target_feature]`
# kernel body (the `x86::compress` functions of mbhash-simd) may call out
# but to the C memory functions or a panic. A helper left as a call passes
# its vectors through memory: the 16-lane SHA-256 kernel measured 2.4x
# slower that way, and `auto` then picked SHA-NI for full lanes.
#
#   scripts/check-kernel-inlining.sh
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 CARGO_TARGET_DIR="$tmp/target" \
    cargo build -q --release --manifest-path "$root/Cargo.toml" -p mbhash-simd
rlib=$(ls "$tmp"/target/release/deps/libmbhash_simd-*.rlib)
mkdir "$tmp/o"
(cd "$tmp/o" && ar x "$rlib")
objdump -dr --no-show-raw-insn "$tmp"/o/*.o >"$tmp/dis"

# Each kernel body, and what it calls (relocations on its call sites).
awk '
    /^[0-9a-f]+ <.*>:$/ {
        name = $2
        kernel = (name ~ /3x868compress/)
        if (kernel) kernels++
        next
    }
    kernel && /R_X86_64_(PLT32|PC32|GOTPCRELX|REX_GOTPCRELX)/ && prev ~ /call/ {
        target = $NF
        if (target !~ /^(memset|memcpy|memmove)/ && target !~ /panic|slice_index|unwrap_failed|expect_failed|assert_failed|len_mismatch_fail/) {
            print "kernel " name " calls " target
            bad++
        }
    }
    { prev = $0 }
    END {
        print kernels + 0 " kernel bodies checked"
        if (kernels == 0) { print "no kernel bodies found"; exit 1 }
        exit bad > 0
    }
' "$tmp/dis" >"$tmp/report" && ok=1 || ok=0
c++filt <"$tmp/report"
[ "$ok" = 1 ]
