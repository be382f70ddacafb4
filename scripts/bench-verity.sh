#!/usr/bin/env bash
# Speed of `mbhash verity` against the peers on one file in the page cache
# (default 1 GiB; SIZE_MB to change), rounds interleaved:
#   * `fsverity digest FILE`           vs `mbhash verity digest -j 1|-j N FILE`
#   * `veritysetup format FILE HASH`   vs `mbhash verity format -j 1|-j N FILE HASH`
#   * `veritysetup verify FILE HASH R` vs `mbhash verity verify -j 1|-j N FILE HASH R`
# (N: all CPUs). Goals: one thread at least 2x each peer; all CPUs at least
# 1.7x one thread on 2 CPUs; peak RSS at most 64 MiB. Prints the best and
# the median of RUNS rounds (default 5) of the wall time, the best CPU time
# (user + system: less disturbed by other load than wall time, and for one
# thread the measure of one core's speed) and the peak RSS of every command
# (GNU time, /usr/bin/time). Outputs are checked equal first.
#
#   scripts/bench-verity.sh
#   RUNS=9 SIZE_MB=256 BENCH_DIR=/tmp/x scripts/bench-verity.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:-${TMPDIR:-/tmp}/mbhash-bench-verity}
runs=${RUNS:-5}
size_mb=${SIZE_MB:-1024}
target=${CARGO_TARGET_DIR:-$root/target}
cpus=$(nproc)
salt=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
uuid=0a1b2c3d-4e5f-4607-8819-2a3b4c5d6e7f

for tool in fsverity veritysetup /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install fsverity cryptsetup-bin time)" >&2; exit 1; }
done
cargo build --quiet --release -p mbhash-cli --manifest-path "$root/Cargo.toml"
mbhash=$target/release/mbhash

mkdir -p "$work"
cd "$work"
data=data.bin
if [ ! -f "$data" ] || [ "$(stat -c %s "$data")" != $((size_mb << 20)) ]; then
    echo "making $work/$data: $size_mb MiB" >&2
    head -c $((size_mb << 20)) /dev/urandom > "$data"
fi
cat "$data" > /dev/null

# Same results first.
[ "$(fsverity digest "$data")" = "$("$mbhash" verity digest "$data")" ] \
    || { echo "digest differs from fsverity" >&2; exit 1; }
rm -f hash.peer hash.ours
want=$(veritysetup format "$data" hash.peer -s "$salt" --uuid="$uuid")
got=$("$mbhash" verity format "$data" hash.ours -s "$salt" --uuid="$uuid")
[ "${want//hash.peer/X}" = "${got//hash.ours/X}" ] && cmp -s hash.peer hash.ours \
    || { echo "format differs from veritysetup" >&2; exit 1; }
root_hash=$(echo "$want" | awk '/^Root hash:/ {print $3}')

# name -> command
declare -A cmd
cmd[digest:fsverity]="fsverity digest $data"
cmd[digest:mbhash-j1]="$mbhash verity digest -j 1 $data"
cmd[digest:mbhash-j$cpus]="$mbhash verity digest -j $cpus $data"
cmd[format:veritysetup]="veritysetup format $data hash.peer -s $salt --uuid=$uuid"
cmd[format:mbhash-j1]="$mbhash verity format -j 1 $data hash.ours -s $salt --uuid=$uuid"
cmd[format:mbhash-j$cpus]="$mbhash verity format -j $cpus $data hash.ours -s $salt --uuid=$uuid"
cmd[verify:veritysetup]="veritysetup verify $data hash.peer $root_hash"
cmd[verify:mbhash-j1]="$mbhash verity verify -j 1 $data hash.ours $root_hash"
cmd[verify:mbhash-j$cpus]="$mbhash verity verify -j $cpus $data hash.ours $root_hash"
names=(digest:fsverity digest:mbhash-j1 "digest:mbhash-j$cpus"
       format:veritysetup format:mbhash-j1 "format:mbhash-j$cpus"
       verify:veritysetup verify:mbhash-j1 "verify:mbhash-j$cpus")

declare -A times cpu rss
for ((r = 0; r < runs; r++)); do
    for name in "${names[@]}"; do
        out=$( { /usr/bin/time -f "%e %M %U %S" ${cmd[$name]} >/dev/null; } 2>&1 | tail -1)
        read -r wall kb user sys <<<"$out"
        times[$name]="${times[$name]:-} $wall"
        cpu[$name]="${cpu[$name]:-} $(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')"
        [ "${rss[$name]:-0}" -ge "$kb" ] || rss[$name]=$kb
    done
done

stat() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {printf "%s %s", v[1], v[int((NR+1)/2)]}'; }
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $cpus CPUs; $size_mb MiB in page cache; $runs rounds"
printf '%-22s %8s %9s %7s %10s %11s %8s\n' command best_s median_s x_peer best_cpu_s x_peer_cpu rss_MiB
for name in "${names[@]}"; do
    read -r best median <<<"$(echo "${times[$name]}" | stat)"
    peer=${name%%:*}
    case $peer in digest) p=digest:fsverity ;; *) p=$peer:veritysetup ;; esac
    read -r pbest _ <<<"$(echo "${times[$p]}" | stat)"
    read -r cbest _ <<<"$(echo "${cpu[$name]}" | stat)"
    read -r pcbest _ <<<"$(echo "${cpu[$p]}" | stat)"
    ratio=$(awk -v a="$pbest" -v b="$best" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
    cratio=$(awk -v a="$pcbest" -v b="$cbest" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
    printf '%-22s %8s %9s %7s %10s %11s %8s\n' "$name" "$best" "$median" "$ratio" "$cbest" "$cratio" $((rss[$name] / 1024))
done
