#!/bin/sh
# Builds the kernel-style static library: mbhash-ffi without its `std`
# feature (`no_std`, no heap, no thread-local storage, a panic traps), with
# the `kernel` profile (release code, `panic = "abort"`), and prints the
# archive's path:
#
#   mbhash-ffi/kernel/build.sh     ->  target/kernel-lib/kernel/libmbhash.a
#
# Its own target directory keeps these flags from invalidating the normal
# builds. Flags for our crates:
#   -C force-unwind-tables=no   no unwind tables are asked for (the README,
#                               "Kernel-style use", says what .eh_frame is left, and why);
#   -C no-redzone=yes           no use of the 128 bytes below %rsp, which an
#                               interrupt on the same stack would overwrite.
# `core` and `compiler_builtins` come precompiled with the toolchain and keep
# their unwind tables and red zone: a real kernel build would rebuild them
# (build-std with a kernel target), which this stable toolchain cannot do.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$(dirname "$here")")
target_dir=$root/target/kernel-lib

# RUSTFLAGS is ours; CARGO_ENCODED_RUSTFLAGS would take precedence over it.
unset CARGO_ENCODED_RUSTFLAGS
CARGO_TARGET_DIR=$target_dir \
RUSTFLAGS="-C force-unwind-tables=no -C no-redzone=yes" \
    cargo build --manifest-path "$root/Cargo.toml" -p mbhash-ffi \
        --no-default-features --profile kernel >&2

# Cargo names the archive after the crate's library (mbhash_ffi).
cp "$target_dir/kernel/libmbhash_ffi.a" "$target_dir/kernel/libmbhash.a"
echo "$target_dir/kernel/libmbhash.a"
