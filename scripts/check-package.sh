#!/usr/bin/env sh
# The crates as crates.io would get them: `cargo package` for every
# published package (each built from its packaged sources, against the
# others packaged), then mbhash-core's tests built and run from the
# unpacked package, its mbhash dependencies being the unpacked packages
# too (no path dependency, no file outside the package).
set -eu
cd "$(dirname "$0")/.."

cargo package --workspace --exclude mbhash-compat --exclude mbhash-py --allow-dirty

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
unpacked=target/package/unpacked
rm -rf "$unpacked"
mkdir -p "$unpacked"
for crate in mbhash-simd mbhash-core mbhash-test-support; do
  tar -xzf "target/package/$crate-$version.crate" -C "$unpacked"
done
here=$(pwd)
cd "$unpacked/mbhash-core-$version"
# The unpacked package is a workspace of its own. Its tests run with the
# repository's test profile (the workspace's [profile.dev], which a package
# manifest does not carry): the service's latency test compares against a
# kernel built as in release.
CARGO_TARGET_DIR="$here/target/package/unpacked-target" cargo test --offline \
  --config 'profile.dev.opt-level=1' \
  --config 'profile.dev.package.mbhash-simd.opt-level=3' \
  --config 'profile.dev.package.mbhash-simd.debug-assertions=false' \
  --config 'profile.dev.package.mbhash-simd.overflow-checks=false' \
  --config "patch.crates-io.mbhash-simd.path=\"$here/$unpacked/mbhash-simd-$version\"" \
  --config "patch.crates-io.mbhash-test-support.path=\"$here/$unpacked/mbhash-test-support-$version\""
