#!/usr/bin/env sh
# The crates as crates.io would get them: `cargo package` for every
# published package (each built from its packaged sources, against the
# others packaged), then mbhash-core's tests built and run from the
# unpacked package, its mbhash dependencies being the unpacked packages
# too (no path dependency, no file outside the package).
set -eu
cd "$(dirname "$0")/.."
here=$(pwd)

# `cargo package` verifies each crate against the others through a local
# registry named after the path of this checkout, and cargo takes a
# registry's crate of a given version to be immutable: one it unpacked
# (under CARGO_HOME/registry/src) or built (in the target directory)
# before is reused, never refreshed. Checked out again at the same path,
# with the same version number and a kept cargo home or target directory,
# the packages would be verified against the sources of an earlier run. So
# the unpacked copies of our crates go first, and the packages are built in
# a target directory of their own whose units of our crates are dropped
# (the crates.io dependencies built there are kept).
cargo_home=${CARGO_HOME:-$HOME/.cargo}
for dir in "$cargo_home"/registry/src/*/; do
  case "$(basename "$dir")" in
    index.crates.io-*) ;;
    *) rm -rf "$dir"mbhash-* ;;
  esac
done
target_dir=$(cargo metadata --format-version 1 --no-deps --offline \
  | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
test -n "$target_dir" || { echo "check-package: no target directory from cargo metadata" >&2; exit 1; }
CARGO_TARGET_DIR="$target_dir/package-check"
export CARGO_TARGET_DIR
rm -rf "$CARGO_TARGET_DIR/package" \
  "$CARGO_TARGET_DIR"/debug/.fingerprint/mbhash-* "$CARGO_TARGET_DIR"/debug/build/mbhash-*

cargo package --workspace --exclude mbhash-compat --exclude mbhash-py --allow-dirty

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
packages="$CARGO_TARGET_DIR/package"
unpacked="$packages/unpacked"
mkdir -p "$unpacked"
for crate in mbhash-simd mbhash-core mbhash-test-support; do
  tar -xzf "$packages/$crate-$version.crate" -C "$unpacked"
done
cd "$unpacked/mbhash-core-$version"
# A workspace of its own, wherever the target directory is (inside this
# checkout, cargo would take the repository's workspace for its own).
printf '\n[workspace]\n' >>Cargo.toml
# The unpacked package's tests run with the
# repository's test profile (the workspace's [profile.dev], which a package
# manifest does not carry): the service's latency test compares against a
# kernel built as in release. Its mbhash dependencies are path
# dependencies, checked by content.
CARGO_TARGET_DIR="$target_dir/package-check-unpacked" cargo test --offline \
  --config 'profile.dev.opt-level=1' \
  --config 'profile.dev.package.mbhash-simd.opt-level=3' \
  --config 'profile.dev.package.mbhash-simd.debug-assertions=false' \
  --config 'profile.dev.package.mbhash-simd.overflow-checks=false' \
  --config "patch.crates-io.mbhash-simd.path=\"$unpacked/mbhash-simd-$version\"" \
  --config "patch.crates-io.mbhash-test-support.path=\"$unpacked/mbhash-test-support-$version\""
cd "$here"
