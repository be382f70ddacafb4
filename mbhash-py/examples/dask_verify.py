r"""Verify a checksum manifest across a Dask cluster with mbhash.

The manifest is what `mbhash sum` (or sha256sum, sha512sum, ...) writes:
`HEX  NAME` lines (`HEX *NAME` in binary mode, a leading backslash when the
name has an escaped backslash, newline or carriage return) or BSD-style
`SHA256 (NAME) = HEX` lines (`--tag`). It is split into chunks; each Dask
worker hashes the files of its chunk with `mbhash.hash_files` (many files
at once, in SIMD lanes, with the GIL released) and sends back only what
went wrong: mismatches and files it could not read. Every worker must see
the files at the same paths (a shared file system) and have mbhash
installed.

    python dask_verify.py SUMS                                # a local cluster
    python dask_verify.py SUMS --scheduler tcp://10.0.0.5:8786
    python dask_verify.py SUMS -a sha512 --chunk 1000 --root /data

Failed files are reported as `sha256sum -c` reports them: `NAME: FAILED` or
`NAME: FAILED open or read` on standard output, the name's bytes as they
are, escaped as coreutils escapes them in check mode when the name holds a
newline (a leading backslash, `\\` and `\n` inside). Exit status: 0 if
every file matched, 1 otherwise, and 1 when the manifest has no checksum
line at all ("no properly formatted checksum lines found"), as
`sha256sum -c`.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from distributed import Client

# What a worker sends back: (ok count, mismatched names,
# [(name, errno, strerror)], worker address).
ChunkResult = tuple[int, list[bytes], list[tuple[bytes, "int | None", "str | None"]], "str | None"]

# BSD tags as `mbhash sum --tag` writes them.
TAGS = {
    b"SHA224": "sha224", b"SHA256": "sha256", b"SHA384": "sha384", b"SHA512": "sha512",
    b"SHA512/224": "sha512_224", b"SHA512/256": "sha512_256",
}
DIGEST_SIZE = {"sha224": 28, "sha256": 32, "sha384": 48, "sha512": 64,
               "sha512_224": 28, "sha512_256": 32}

_BSD = re.compile(rb"^(\\?)(SHA\d+(?:/\d+)?) ?\((.*)\) = ([0-9a-fA-F]+)$", re.S)
_GNU = re.compile(rb"^(\\?)([0-9a-fA-F]+) [ *]?(.+)$", re.S)


@dataclass
class Entry:
    """One line of a manifest: the file name (bytes, unescaped), the
    expected digest (bytes) and the algorithm (hashlib's name)."""
    name: bytes
    expected: bytes
    algo: str


@dataclass
class Report:
    """What a verification found."""
    ok: int = 0
    mismatches: list[bytes] = field(default_factory=list)  # file names
    unreadable: list[tuple[bytes, int | None, str | None]] = field(default_factory=list)
    misformatted: list[int] = field(default_factory=list)  # line numbers
    workers: set[str | None] = field(default_factory=set)  # addresses of the workers that ran chunks

    @property
    def failed(self) -> bool:
        return bool(self.mismatches or self.unreadable or self.misformatted)


def _unescape(name: bytes) -> bytes | None:
    out, i = bytearray(), 0
    while i < len(name):
        c = name[i:i + 1]
        if c == b"\\":
            nxt = name[i + 1:i + 2]
            if nxt not in (b"\\", b"n", b"r"):
                return None
            out += {b"\\": b"\\", b"n": b"\n", b"r": b"\r"}[nxt]
            i += 2
        else:
            out += c
            i += 1
    return bytes(out)


def escape_name(name: bytes) -> bytes:
    r"""`name` as `sha256sum -c` prints it in a result line: escaped, with a
    leading backslash, if it holds a newline (`\\`, `\n` and `\r` inside);
    as it is otherwise (coreutils 9 leaves a name with only a backslash or
    carriage return unescaped in check mode)."""
    if b"\n" not in name:
        return name
    return b"\\" + name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")


def parse_manifest(
    data: bytes, algo: str = "sha256", zero_terminated: bool = False
) -> tuple[list[Entry], list[int]]:
    """The entries of a manifest (bytes) and the numbers of the lines that
    are not checksum lines. `algo` is the algorithm of untagged lines."""
    entries: list[Entry] = []
    bad: list[int] = []
    sep = b"\0" if zero_terminated else b"\n"
    lines = data.split(sep)
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, 1):
        if not zero_terminated and line.endswith(b"\r"):
            line = line[:-1]
        m = _BSD.match(line)
        if m and m.group(2) in TAGS:
            escaped, line_algo, name, hexd = m.group(1), TAGS[m.group(2)], m.group(3), m.group(4)
        else:
            m = _GNU.match(line)
            if not m:
                bad.append(number)
                continue
            escaped, hexd, name, line_algo = m.group(1), m.group(2), m.group(3), algo
        if escaped and not zero_terminated:
            unescaped = _unescape(name)
            if unescaped is None:
                bad.append(number)
                continue
            name = unescaped
        if not name or len(hexd) != 2 * DIGEST_SIZE[line_algo]:
            bad.append(number)
            continue
        entries.append(Entry(name, bytes.fromhex(hexd.decode()), line_algo))
    return entries, bad


def verify_chunk(entries: list[tuple[bytes, bytes, str]], root: str) -> ChunkResult:
    """Runs on a worker: hashes the files of `entries`, a list of (name,
    expected digest, algorithm) tuples, and returns what went wrong: (ok
    count, mismatched names, [(name, errno, strerror)], worker address).
    Only plain values travel, so that workers need nothing but mbhash."""
    import mbhash

    worker: str | None
    try:
        from distributed import get_worker
        worker = get_worker().address
    except (ImportError, ValueError):
        worker = None
    broot = os.fsencode(root)
    by_algo: dict[str, list[tuple[bytes, bytes]]] = {}
    for name, expected, algo in entries:
        by_algo.setdefault(algo, []).append((name, expected))
    ok = 0
    mismatches: list[bytes] = []
    unreadable: list[tuple[bytes, int | None, str | None]] = []
    for algo, group in by_algo.items():
        paths = [os.path.join(broot, name) for name, _ in group]
        for (name, expected), got in zip(group, mbhash.hash_files(paths, algo)):
            if isinstance(got, OSError):
                unreadable.append((name, got.errno, got.strerror))
            elif got == expected:
                ok += 1
            else:
                mismatches.append(name)
    return ok, mismatches, unreadable, worker


def verify_manifest(client: Client, entries: list[Entry], root: str, chunk: int = 500) -> Report:
    """Verifies `entries` on the cluster of `client` (a
    `distributed.Client`), `chunk` entries per task; relative names are
    taken from `root`. Returns a Report."""
    # Run as a script, verify_chunk is shipped by value (it is in
    # __main__); imported as a module, the workers need the module itself.
    if __name__ != "__main__":
        client.upload_file(__file__)
    plain = [(e.name, e.expected, e.algo) for e in entries]
    chunks = [plain[i:i + chunk] for i in range(0, len(plain), chunk)]
    futures = client.map(verify_chunk, chunks, root=root, pure=False)
    report = Report()
    results: list[ChunkResult] = client.gather(futures)
    for ok, mismatches, unreadable, worker in results:
        report.ok += ok
        report.mismatches += mismatches
        report.unreadable += unreadable
        report.workers.add(worker)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Verify a checksum manifest on a Dask cluster.")
    ap.add_argument("manifest")
    ap.add_argument("-a", "--algo", default="sha256",
                    help="algorithm of untagged lines (default sha256)")
    ap.add_argument("-z", "--zero", action="store_true", help="lines end with NUL")
    ap.add_argument("--scheduler", help="scheduler address, e.g. tcp://10.0.0.5:8786 "
                    "(default: a local cluster of 2 worker processes)")
    ap.add_argument("--chunk", type=int, default=500, help="entries per task")
    ap.add_argument("--root", help="directory of relative names (default: the manifest's)")
    ap.add_argument("--quiet", action="store_true", help="no line per failed file")
    args = ap.parse_args(argv)

    with open(args.manifest, "rb") as f:
        entries, bad = parse_manifest(f.read(), args.algo.replace("-", "_"), args.zero)
    if not entries:
        # As sha256sum -c: nothing to check is a failure, not a success.
        print(f"{os.path.basename(sys.argv[0])}: {args.manifest}: "
              "no properly formatted checksum lines found", file=sys.stderr)
        return 1

    from distributed import Client, LocalCluster

    root = args.root or os.path.dirname(os.path.abspath(args.manifest))
    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
        report = verify_manifest(client, entries, root, args.chunk)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    report.misformatted = bad
    if not args.quiet:
        # Bytes, as sha256sum prints them (a name need not be UTF-8).
        out = sys.stdout.buffer
        sys.stdout.flush()
        for name in report.mismatches:
            out.write(escape_name(name) + b": FAILED\n")
        for name, _errno, strerror in report.unreadable:
            out.write(escape_name(name) + b": FAILED open or read\n")
            print(f"{os.fsdecode(escape_name(name))}: {strerror}", file=sys.stderr)
        out.flush()
    print(f"{report.ok} OK, {len(report.mismatches)} mismatched, "
          f"{len(report.unreadable)} unreadable, {len(bad)} misformatted lines "
          f"({len(report.workers)} workers)", file=sys.stderr)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
