#!/usr/bin/env sh
# C entry against C entry: scripts/bench-c/driver.c built twice, once
# against mbhash's C library (target/release/libmbhash_ffi.a, the header
# and the isa-l_crypto drop-in headers of mbhash-ffi/include) and once
# against ISA-L crypto and ISA-L (never both in one binary: the isal_*
# symbols collide). The two programs run in alternating processes, pinned to
# one CPU; each cell's figure per entry is the median over the runs, and a
# cell's ratio is mbhash's best entry over ISA-L's best entry (every
# per-ISA manager and CRC function ISA-L exports is timed, not only what its
# dispatcher picks). Digest fingerprints must agree across the two builds.
# Hash cells (family/<size>x<jobs>): SHA-256 and SHA-512 at the sizes and
# job counts of their targets; MD5, SHA-1 and SM3 at 64 B, 4 KiB and 128 KiB
# by 1, 2, 8, 16 and 64 jobs. Each cell times ISA-L crypto's dispatching
# isal_*_ctx_mgr_* API and every per-ISA manager it exports (base, sse,
# avx, avx2, avx512, sse_ni, avx512_ni: those of the family the CPU runs)
# against mbhash's isa-l_crypto drop-in, its native manager
# (mbh_submit/mbh_flush) and mbh_hash_many.
# Every CRC of ISA-L's crc.h and crc64.h is a cell (named after the ISA-L
# function), beside mbhash's drop-in of the same name, mbh_crc(id) and the
# per-variant mbh_* function; each mbhash entry's ratio to ISA-L's best is
# shown beside it.
#
#   scripts/bench-c.sh [--quick] [--runs N] [--cpu N] [--cpu-time]
#                      [--only crc|sha|md5|sha1|sm3]
#
# --only sha: SHA-256 and SHA-512 (not SHA-1). --quick: one run, every CRC
# at 4 KiB and each hash family at 4 KiB x 16 (the CI smoke). --cpu-time:
# batches are timed by the process's CPU time, not wall time, which leaves
# out the time other processes held the pinned CPU (a shared machine).
#
# ISA-L crypto: MBHASH_ISAL_CRYPTO_DIR (holding lib/libisal_crypto.a and
# include/isa-l_crypto/). ISA-L: MBHASH_ISAL_DIR (holding libisal.a in
# itself or lib/, and crc.h in include/ or itself), else the system's
# libisal-dev. Without a peer its cells show mbhash alone.
set -eu
cd "$(dirname "$0")/.."

runs=3
cpu=
mode=
clock=
only=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick; runs=1; shift ;;
    --runs) runs=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --cpu-time) clock=cputime; shift ;;
    --only)
      case "${2:-}" in
        crc|sha|md5|sha1|sm3) only=$2 ;;
        *) echo "bench-c.sh: --only takes crc, sha (SHA-2), md5, sha1 or sm3" >&2; exit 2 ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,34p' "$0"; exit 0 ;;
    *) echo "bench-c.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

cc=${CC:-cc}
out=${CARGO_TARGET_DIR:-target}/bench-c
mkdir -p "$out"
cargo build --release -p mbhash-ffi
lib=${CARGO_TARGET_DIR:-target}/release/libmbhash_ffi.a
cflags="-O2 -std=c11 -Wall -Wextra -Werror"
$cc $cflags -DSIDE_MBHASH -Imbhash-ffi/include -Imbhash-ffi/include/isa-l scripts/bench-c/driver.c "$lib" \
  -lpthread -ldl -lm -o "$out/bench-mbhash"

# The peers.
isal_flags=
isal_libs=
crypto=${MBHASH_ISAL_CRYPTO_DIR:-}
if [ -n "$crypto" ] && [ -f "$crypto/lib/libisal_crypto.a" ]; then
  isal_flags="$isal_flags -I$crypto/include"
  isal_libs="$isal_libs $crypto/lib/libisal_crypto.a"
else
  echo "ISA-L crypto not found (MBHASH_ISAL_CRYPTO_DIR): hash cells show mbhash alone"
  isal_flags="$isal_flags -DNO_ISAL_CRYPTO"
fi
isal=${MBHASH_ISAL_DIR:-}
isal_lib=
for f in "$isal/libisal.a" "$isal/lib/libisal.a"; do
  if [ -n "$isal" ] && [ -f "$f" ]; then isal_lib=$f; fi
done
if [ -n "$isal_lib" ]; then
  for d in "$isal/include" "$isal"; do
    if [ -f "$d/crc.h" ]; then isal_flags="$isal_flags -I$d"; fi
  done
  isal_libs="$isal_libs $isal_lib"
elif [ -f /usr/include/isa-l/crc.h ]; then
  isal_flags="$isal_flags -I/usr/include/isa-l"
  # Debian's libisal-dev ships the shared library only.
  isal_lib=$($cc -print-file-name=libisal.a)
  if [ -f "$isal_lib" ]; then
    isal_libs="$isal_libs $isal_lib"
  else
    isal_lib=$($cc -print-file-name=libisal.so)
    isal_libs="$isal_libs -lisal"
  fi
else
  echo "ISA-L not found (MBHASH_ISAL_DIR or libisal-dev): CRC cells show mbhash alone"
  isal_flags="$isal_flags -DNO_ISAL_CRC"
fi
# ISA-L's per-ISA CRC functions are exported but mostly undeclared: the
# driver times those this library defines (HAVE_<symbol>).
if [ -n "$isal_lib" ] && [ -f "$isal_lib" ]; then
  nm_flags=
  case "$isal_lib" in *.so) nm_flags=-D ;; esac
  # shellcheck disable=SC2086
  for sym in $(${NM:-nm} $nm_flags -g --defined-only "$isal_lib" 2>/dev/null |
    awk '$2 == "T" && $3 ~ /^crc(16|32|64)_/ { print $3 }' | sort -u); do
    isal_flags="$isal_flags -DHAVE_$sym"
  done
fi
# shellcheck disable=SC2086
$cc $cflags -DSIDE_ISAL $isal_flags scripts/bench-c/driver.c $isal_libs -o "$out/bench-isal"

pin=
if command -v taskset >/dev/null 2>&1; then
  cpu=${cpu:-$(($(nproc) - 1))}
  pin="taskset -c $cpu"
fi
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "CPU: ${model:-unknown}; pinned to: ${cpu:-no pinning}; runs: $runs${mode:+ ($mode)}${clock:+; clock: CPU time}"

results="$out/results.txt"
: > "$results"
i=0
while [ "$i" -lt "$runs" ]; do
  # shellcheck disable=SC2086
  $pin "$out/bench-mbhash" $mode $clock $only >> "$results"
  # shellcheck disable=SC2086
  $pin "$out/bench-isal" $mode $clock $only >> "$results"
  i=$((i + 1))
done

# Medians per cell and entry; the best entry of each side per cell; the
# ratio (higher is better for mbhash). CRC cells also show ns per call.
awk '
function median(key,   n, i, j, t, a) {
  n = count[key]
  for (i = 1; i <= n; i++) a[i] = vals[key, i]
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
  cell = v["cell"]; entry = v["entry"]
  key = cell SUBSEP entry
  if (!(key in count)) { order[++nkeys] = key }
  count[key]++
  vals[key, count[key]] = v["gbps"]
  nsv[key, count[key]] = v["ns"]
  if (!(cell in seen)) { cells[++ncells] = cell; seen[cell] = 1 }
  if ((cell in fp) && fp[cell] != v["fp"]) { bad = bad " " cell " (" entry ")" }
  fp[cell] = v["fp"]
}
END {
  if (bad != "") { print "DIGESTS DIFFER:" bad; exit 1 }
  for (k = 1; k <= nkeys; k++) {
    key = order[k]; split(key, p, SUBSEP)
    med[key] = median(key)
    side = (p[2] ~ /^mbhash\//) ? "mbhash" : "isal"
    if (med[key] > best[p[1], side]) { best[p[1], side] = med[key]; bestname[p[1], side] = p[2] }
  }
  # Per entry: the median GB/s, ns per call (or job) at it, and for an
  # mbhash entry its ratio to the best ISA-L entry of the cell.
  printf "%-28s %-36s %10s %10s %8s\n", "cell", "entry", "GB/s", "ns", "vs isal"
  for (k = 1; k <= nkeys; k++) {
    key = order[k]; split(key, p, SUBSEP)
    r = "-"
    if (p[2] ~ /^mbhash\// && best[p[1], "isal"] > 0) r = sprintf("%.2f", med[key] / best[p[1], "isal"])
    printf "%-28s %-36s %10.3f %10.1f %8s\n", p[1], p[2], med[key], nsmed(key), r
  }
  print ""
  printf "%-28s %-36s %-36s %8s\n", "cell", "mbhash best", "ISA-L best", "ratio"
  for (c = 1; c <= ncells; c++) {
    cell = cells[c]
    if (best[cell, "isal"] > 0)
      printf "%-28s %-36s %-36s %8.2f\n", cell, bestname[cell, "mbhash"], bestname[cell, "isal"], best[cell, "mbhash"] / best[cell, "isal"]
    else
      printf "%-28s %-36s %-36s %8s\n", cell, bestname[cell, "mbhash"], "(no peer)", "-"
  }
}
function nsmed(key,   n, i, j, t, a) {
  n = count[key]
  for (i = 1; i <= n; i++) a[i] = nsv[key, i]
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
' "$results"
