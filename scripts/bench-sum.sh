#!/usr/bin/env bash
# Speed of `mbhash sum` against its peers, warm page cache:
#   * a tree of 20,000 files of 1-64 KiB: `mbhash sum -r .` against
#     `find . -type f -print0 | xargs -0 sha256sum` (goal: at least 3x faster)
#     and against the fair peer, OpenSSL (SHA-NI) on every CPU:
#     `find . -type f -print0 | xargs -0 -P$(nproc) -n 2000 openssl dgst -sha256 -r`
#     (goal: at least 1.5x faster), with the I/O floor beside it: the same
#     files read alone (`xargs -0 -P$(nproc) -n 2000 cat`), no hashing;
#   * one 1 GiB file: `mbhash sum FILE` against `openssl dgst -sha256 FILE`
#     (goal: at least as fast), and the default `-j` against `-j1` (goal:
#     never slower);
#   * `mbhash sum -c --quiet` of a list of 1,000,000 files of 100-1000 bytes
#     against `sha256sum -c --quiet` (goal: at least as fast).
# Uses hyperfine when present (apt-get install hyperfine) unless NO_HYPERFINE
# is set, else a plain timing loop; reports the median of RUNS runs (default
# 10) after two warm-up runs.
#
#   scripts/bench-sum.sh              # build, make the data once, measure
#   RUNS=20 BENCH_DIR=/tmp/x scripts/bench-sum.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-${TMPDIR:-/tmp}/mbhash-bench-sum}
runs=${RUNS:-10}
target=${CARGO_TARGET_DIR:-$root/target}

cargo build --quiet --release -p mbhash-cli --manifest-path "$root/Cargo.toml"
mbhash=$target/release/mbhash

# make_files DIR SEED BLOB DIRS FILES MIN MAX SUFFIX NUMBERED: DIRS
# directories of FILES files each, of MIN to MAX bytes, cut from BLOB bytes
# of seeded noise: deterministic sizes and contents. NUMBERED (1) starts each
# file with its directory's and its own number, so that no two are alike.
make_files() {
    rm -rf "$1"
    mkdir -p "$1"
    perl -e '
        my ($dir, $seed, $bloblen, $dirs, $files, $min, $max, $suffix, $numbered) = @ARGV;
        srand($seed);
        my $blob = join "", map { chr(int(rand(256))) } 1 .. $bloblen;
        my $dw = length($dirs - 1);
        my $fw = length($files - 1);
        for my $d (0 .. $dirs - 1) {
            my $sub = sprintf("%s/d%0*d", $dir, $dw, $d);
            mkdir $sub or die "mkdir: $!";
            for my $f (0 .. $files - 1) {
                my $size = $min + int(rand($max - $min + 1));
                my $off = int(rand($bloblen - $size));
                my $head = $numbered ? pack("NN", $d, $f) : "";
                my $path = sprintf("%s/f%0*d%s", $sub, $fw, $f, $suffix);
                open(my $fh, ">", $path) or die "$path: $!";
                binmode $fh;
                print $fh $head, substr($blob, $off, $size - length($head));
                close $fh;
            }
        }' "$@"
}

mkdir -p "$work"
tree=$work/tree
big=$work/big.bin
if [ ! -f "$work/tree.complete" ]; then
    echo "making $tree: 20000 files of 1-64 KiB" >&2
    make_files "$tree" 42 $((1 << 17)) 100 200 1024 $((64 << 10)) .bin 0
    touch "$work/tree.complete"
fi
small=$work/small
if [ ! -f "$work/small.complete" ]; then
    echo "making $small: 1,000,000 files of 100-1000 bytes" >&2
    make_files "$small" 7 4096 1000 1000 100 1000 "" 1
    (cd "$small" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum > "$work/small.sha256")
    touch "$work/small.complete"
fi
if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" != 1073741824 ]; then
    echo "making $big: 1 GiB" >&2
    head -c 1073741824 /dev/urandom > "$big"
fi
# Same digests first.
cd "$tree"
want=$(find . -type f -print0 | xargs -0 sha256sum | LC_ALL=C sort -k2)
got=$("$mbhash" sum -r . | LC_ALL=C sort -k2)
[ "$want" = "$got" ] || { echo "tree: digests differ from sha256sum" >&2; exit 1; }
[ "$(openssl dgst -sha256 -r "$big" | cut -c1-64)" = "$("$mbhash" sum "$big" | cut -c1-64)" ] \
    || { echo "big file: digest differs from openssl" >&2; exit 1; }

# median SECONDS-PER-RUN... -> the median
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# measure NAME COMMAND...: prints "NAME median_seconds"
measure() {
    local name=$1; shift
    local cmd=$*
    if [ -z "${NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null; then
        local json=$work/hyperfine.json
        # hyperfine's warnings (outliers on a shared machine) would clutter
        # the report; they are shown only if it fails.
        hyperfine --style none --warmup 2 --runs "$runs" --export-json "$json" "$cmd" \
            >/dev/null 2>"$work/hyperfine.err" || { cat "$work/hyperfine.err" >&2; exit 1; }
        local m
        m=$(perl -0777 -ne 'print $1 if /"median":\s*([0-9.eE+-]+)/' "$json")
        echo "$name $m"
    else
        local times=() i t0 t1
        for i in 1 2; do bash -c "$cmd" >/dev/null; done
        for ((i = 0; i < runs; i++)); do
            t0=$(date +%s.%N)
            bash -c "$cmd" >/dev/null
            t1=$(date +%s.%N)
            times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
        done
        echo "$name $(median "${times[@]}")"
    fi
}

report() {
    local label=$1 ours=$2 peer=$3 goal=$4
    local o p
    o=$(echo "$ours" | cut -d' ' -f2)
    p=$(echo "$peer" | cut -d' ' -f2)
    awk -v l="$label" -v o="$o" -v p="$p" -v g="$goal" -v on="${ours%% *}" -v pn="${peer%% *}" 'BEGIN {
        r = p / o
        printf "%-10s %-22s %8.3f s\n%-10s %-22s %8.3f s\n%-10s speed-up %.2fx (goal %sx): %s\n\n",
            l, on, o, l, pn, p, l, r, g, (r >= g) ? "met" : "NOT met"
    }'
}

echo "median of $runs warm runs; $(nproc) CPUs" >&2
cd "$tree"
ours=$(measure "mbhash-sum-r" "$mbhash sum -r . > /dev/null")
peer=$(measure "find|xargs-sha256sum" "find . -type f -print0 | xargs -0 sha256sum > /dev/null")
report "tree" "$ours" "$peer" 3
peer=$(measure "xargs-P$(nproc)-openssl" \
    "find . -type f -print0 | xargs -0 -P$(nproc) -n 2000 openssl dgst -sha256 -r > /dev/null")
report "tree" "$ours" "$peer" 1.5
floor=$(measure "xargs-P$(nproc)-cat" \
    "find . -type f -print0 | xargs -0 -P$(nproc) -n 2000 cat > /dev/null")
printf "%-10s %-22s %8.3f s\n\n" tree "$(echo "$floor" | cut -d' ' -f1) (I/O floor)" "$(echo "$floor" | cut -d' ' -f2)"

ours=$(measure "mbhash-sum" "$mbhash sum $big > /dev/null")
peer=$(measure "openssl-dgst-sha256" "openssl dgst -sha256 $big > /dev/null")
report "1GiB" "$ours" "$peer" 1
one=$(measure "mbhash-sum-j1" "$mbhash sum -j1 $big > /dev/null")
report "1GiB" "$ours" "$one" 1

cd "$small"
"$mbhash" sum -c --quiet "$work/small.sha256" \
    || { echo "small files: mbhash sum -c failed" >&2; exit 1; }
ours=$(measure "mbhash-sum-c" "$mbhash sum -c --quiet $work/small.sha256")
peer=$(measure "sha256sum-c" "sha256sum -c --quiet $work/small.sha256")
report "check-1M" "$ours" "$peer" 1
