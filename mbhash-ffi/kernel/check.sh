#!/bin/sh
# Checks the kernel-style static library (see the README, "Kernel-style use"):
#
#   1. builds it with kernel/build.sh (mbhash-simd, mbhash-core and
#      mbhash-ffi, all without `std`), and lints mbhash-ffi without `std`;
#   2. links the whole archive into one object and fails on any undefined
#      symbol but memcpy, memset, memmove, memcmp and bcmp, on thread-local
#      storage, on constructors, and on our own code using the red zone or
#      calling a function of `core` that does; reports what is left in
#      .eh_frame;
#   3. builds tests/freestanding.c with no C library and no start files
#      against the archive alone, and runs it (NIST vectors, every engine);
#   4. builds and runs tests/stack.c, which measures the stack each export
#      uses and fails above MBH_KERNEL_STACK_MAX.
#
#   mbhash-ffi/kernel/check.sh        ($CC: the C compiler, default cc)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "kernel/check.sh: FAIL: $*" >&2
    exit 1
}

echo "-- build"
lib=$("$here/build.sh")
echo "$lib"
# The same build for the two lower crates on their own (nothing is rebuilt).
CARGO_TARGET_DIR=$(dirname "$(dirname "$lib")") \
RUSTFLAGS="-C force-unwind-tables=no -C no-redzone=yes" \
    cargo build --manifest-path "$root/Cargo.toml" -p mbhash-simd -p mbhash-core \
        --no-default-features --profile kernel
cargo clippy --manifest-path "$root/Cargo.toml" -p mbhash-ffi --no-default-features -- -D warnings

echo "-- symbols and sections"
ld -r --whole-archive "$lib" -o "$tmp/all.o"
# The toolchain's `core` carries LLVM bitcode (.llvmbc), which GNU nm hands
# to the system's LLVM plugin, which may be too old to read it: drop it.
objcopy -R .llvmbc -R .llvmcmd "$tmp/all.o" "$tmp/nm.o"
undefined=$(nm -u "$tmp/nm.o" | awk '{print $2}' | sort -u | tr '\n' ' ')
echo "undefined: $undefined"
for sym in $undefined; do
    case $sym in
        memcpy | memset | memmove | memcmp | bcmp) ;;
        *) fail "undefined symbol $sym (allowed: memcpy memset memmove memcmp bcmp)" ;;
    esac
done
readelf -SW "$tmp/all.o" >"$tmp/sections"
if grep -E ' \.(tbss|tdata)' "$tmp/sections"; then
    fail "thread-local storage sections"
fi
if readelf -sW "$tmp/all.o" | awk '$4 == "TLS"' | grep .; then
    fail "thread-local symbols"
fi
if grep -E ' \.(init_array|fini_array|ctors|dtors|preinit_array)' "$tmp/sections"; then
    fail "constructors or destructors, which a kernel would not run"
fi
eh=$(awk '$2 == ".eh_frame" {print $6}' "$tmp/sections")
echo "no TLS, no constructors; .eh_frame: $((0x${eh:-0})) bytes (the README says why)"

# Red zone: our crates are built with -C no-redzone; `core` and
# `compiler_builtins` come precompiled with it. Functions that address
# memory below %rsp, per archive member.
mkdir "$tmp/ar"
(cd "$tmp/ar" && ar x "$lib")
: >"$tmp/ours_undefined"
: >"$tmp/redzone_theirs"
for obj in "$tmp"/ar/*.o; do
    name=$(basename "$obj")
    objdump -d --no-show-raw-insn "$obj" |
        awk '/^[0-9a-f]+ <.*>:$/ {f = substr($2, 2, length($2) - 3)}
             /-0x[0-9a-f]+\(%rsp\)/ {print f}' | sort -u >"$tmp/redzone"
    if echo "$name" | grep -Eq '^(core-|compiler_builtins-|[0-9a-f]{16}-)'; then
        cat "$tmp/redzone" >>"$tmp/redzone_theirs"
    else
        if [ -s "$tmp/redzone" ]; then
            cat "$tmp/redzone"
            fail "$name uses the red zone (built without -C no-redzone?)"
        fi
        readelf -sW "$obj" | awk '$7 == "UND" && $8 != "" {print $8}' >>"$tmp/ours_undefined"
    fi
done
sort -u -o "$tmp/ours_undefined" "$tmp/ours_undefined"
sort -u -o "$tmp/redzone_theirs" "$tmp/redzone_theirs"
called=$(comm -12 "$tmp/ours_undefined" "$tmp/redzone_theirs")
if [ -n "$called" ]; then
    echo "$called"
    fail "our code calls functions of core that use the red zone"
fi
echo "red zone: none in our code; $(wc -l <"$tmp/redzone_theirs") functions of core and" \
    "compiler_builtins use it, none called by our code"

echo "-- freestanding test (no C library, no start files)"
"$cc" -std=c11 -Wall -Wextra -Werror -pedantic -O2 \
    -ffreestanding -fno-builtin -fno-tree-loop-distribute-patterns -fno-stack-protector \
    -fno-pie -no-pie -nostdlib -static \
    -I"$root/mbhash-ffi/include" "$here/tests/freestanding.c" "$lib" -o "$tmp/freestanding"
"$tmp/freestanding" || fail "freestanding test"

echo "-- stack use"
"$cc" -std=c11 -Wall -Wextra -Werror -pedantic -O2 \
    -I"$root/mbhash-ffi/include" "$here/tests/stack.c" "$lib" -lpthread -o "$tmp/stack"
"$tmp/stack" || fail "stack test"

echo "kernel/check.sh: all passed"
