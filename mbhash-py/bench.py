"""Speed of the mbhash Python module beside hashlib, in one run.

    python mbhash-py/bench.py [--rounds N] [--json]

Rows (each a ratio: hashlib's time over mbhash's, > 1 means mbhash is faster):

* hash_many: mbhash.hash_many("sha256", 64 x 4 KiB) against
  [hashlib.sha256(b).digest() for b in bufs];
* one 4 KiB: mbhash.sha256(buf).digest() against hashlib.sha256(buf).digest();
* the same two for sha512_256 (hashlib: OpenSSL's one-stream SHA-512), md5,
  sha1 and sm3 (hashlib's SM3 is OpenSSL's; its rows are left out, and
  said so, where this Python's OpenSSL has none).

The two sides are timed in interleaved rounds (so that a burst of load from
other processes hits both), each round the best of a few repetitions; the
figure reported is the median over rounds. Both clocks are read: wall time,
and the CPU time of the calling thread (every call here runs on it), which
a machine shared with other work disturbs much less. The ratio printed is
that of CPU times; --clock wall prints wall-time ratios. Speed is measured
here, never asserted in the tests.
"""

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import time

import mbhash


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
CLOCK = "cpu"


def best_of(fn, reps, inner):
    """Best time of `reps` runs of `inner` calls of fn, per call (seconds)."""
    best = float("inf")
    clock = CLOCKS[CLOCK]
    for _ in range(reps):
        t = clock()
        for _ in range(inner):
            fn()
        best = min(best, (clock() - t) / inner)
    return best


def compare(name, ours, theirs, rounds, inner, nbytes):
    ours(), theirs()  # warm up (and calibrate mbhash's auto engine)
    ratios, t_ours, t_theirs = [], [], []
    for _ in range(rounds):
        a = best_of(ours, 3, inner)
        b = best_of(theirs, 3, inner)
        t_ours.append(a)
        t_theirs.append(b)
        ratios.append(b / a)
    return {
        "clock": CLOCK,
        "row": name,
        "bytes": nbytes,
        "mbhash_us": statistics.median(t_ours) * 1e6,
        "hashlib_us": statistics.median(t_theirs) * 1e6,
        "mbhash_gbps": nbytes / statistics.median(t_ours) / 1e9,
        "hashlib_gbps": nbytes / statistics.median(t_theirs) / 1e9,
        "ratio": statistics.median(ratios),
        "ratio_min": min(ratios),
        "ratio_max": max(ratios),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--json", action="store_true", help="one JSON object per row")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                    help="cpu: CPU time of the thread (default); wall: elapsed time")
    args = ap.parse_args()
    global CLOCK
    CLOCK = args.clock

    rng = os.urandom
    bufs = [rng(4096) for _ in range(64)]
    one = bufs[0]
    rows = []
    for algo in ("sha256", "sha512_256", "md5", "sha1", "sm3"):
        ctor = getattr(mbhash, algo)
        peer = getattr(hashlib, algo, None) or (lambda d, a=algo: hashlib.new(a, d))
        try:
            peer(b"")
        except ValueError:
            print(f"(no {algo} rows: this Python's hashlib has no {algo})", file=sys.stderr)
            continue
        rows.append(
            compare(
                f"hash_many {algo} 64 x 4 KiB",
                lambda a=algo: mbhash.hash_many(a, bufs),
                lambda p=peer: [p(b).digest() for b in bufs],
                args.rounds,
                20,
                64 * 4096,
            )
        )
        rows.append(
            compare(
                f"one {algo} object, 4 KiB",
                lambda c=ctor: c(one).digest(),
                lambda p=peer: p(one).digest(),
                args.rounds,
                500,
                4096,
            )
        )

    cpu = cpu_name()
    engines = {e["family"]: e["in_use"] for e in mbhash.engines()}
    if args.json:
        for r in rows:
            print(json.dumps({**r, "cpu": cpu, "engines": engines}))
        return
    print(f"CPU: {cpu}; Python {platform.python_version()}; "
          f"{getattr(__import__('ssl'), 'OPENSSL_VERSION', '')}; mbhash engines: {engines}; "
          f"{CLOCK} time, medians of {args.rounds} rounds")
    print(f"{'row':<34} {'mbhash':>12} {'hashlib':>12} {'hashlib/mbhash':>16}")
    for r in rows:
        print(
            f"{r['row']:<34} {r['mbhash_us']:>9.2f} us {r['hashlib_us']:>9.2f} us "
            f"{r['ratio']:>9.2f}x ({r['ratio_min']:.2f}-{r['ratio_max']:.2f})"
        )


if __name__ == "__main__":
    sys.exit(main())
