"""hash_files: many files at once, per-file results and errors."""

import errno
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import pytest

import mbhash
from conftest import ALGOS, engines_of, family_of, reference

CHUNK = 1 << 20  # the reader's chunk: sizes around it are one job, or a stream


def make(tmp_path, rng, sizes):
    paths, datas = [], []
    for i, n in enumerate(sizes):
        p = tmp_path / f"file{i:04}"
        d = rng.randbytes(n)
        p.write_bytes(d)
        paths.append(p)
        datas.append(d)
    return paths, datas


@pytest.mark.parametrize("algo", ALGOS)
def test_sizes_across_chunks(algo, tmp_path, rng):
    sizes = [0, 1, 63, 64, 4095, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7]
    paths, datas = make(tmp_path, rng, sizes)
    got = mbhash.hash_files(paths, algo)
    assert got == [reference(algo, d) for d in datas]


@pytest.mark.parametrize("jobs", [1, 2, 3, 16])
def test_many_files_in_order(jobs, tmp_path, rng):
    sizes = [rng.choice([rng.randrange(200), rng.randrange(70000)]) for _ in range(300)]
    paths, datas = make(tmp_path, rng, sizes)
    assert mbhash.hash_files(paths, jobs=jobs) == [reference("sha256", d) for d in datas]


def test_every_engine(tmp_path, rng):
    paths, datas = make(tmp_path, rng, [rng.randrange(100000) for _ in range(40)])
    for algo in ("sha256", "sha512", "md5", "sha1", "sm3"):
        for engine in engines_of(family_of(algo)):
            assert mbhash.hash_files(paths, algo, engine=engine) == [reference(algo, d) for d in datas], engine


def test_path_kinds(tmp_path):
    p = tmp_path / "a file"
    p.write_bytes(b"abc")
    want = reference("sha256", b"abc")
    assert mbhash.hash_files([p, str(p), os.fsencode(p)]) == [want] * 3
    # A name that is not UTF-8 (bytes path), found again through its bytes.
    raw = os.fsencode(tmp_path) + b"/caf\xe9"
    with open(raw, "wb") as f:
        f.write(b"xyz")
    assert mbhash.hash_files([raw]) == [reference("sha256", b"xyz")]
    assert mbhash.hash_files([os.fsdecode(raw)]) == [reference("sha256", b"xyz")]
    with pytest.raises(TypeError):
        mbhash.hash_files([p, 3])


def test_errors_are_per_file(tmp_path, rng):
    paths, datas = make(tmp_path, rng, [10, 20000, 30])
    missing = tmp_path / "missing"
    directory = tmp_path / "dir"
    directory.mkdir()
    items = [paths[0], missing, paths[1], str(directory), paths[2]]
    got = mbhash.hash_files(items, jobs=2)
    assert got[0] == reference("sha256", datas[0])
    assert got[2] == reference("sha256", datas[1])
    assert got[4] == reference("sha256", datas[2])
    e = got[1]
    assert isinstance(e, FileNotFoundError) and e.errno == errno.ENOENT
    assert e.filename == str(missing)
    assert "No such file" in str(e) and str(missing) in str(e)
    e = got[3]
    assert isinstance(e, IsADirectoryError) and e.errno == errno.EISDIR
    assert e.filename == str(directory)


def test_empty_list():
    assert mbhash.hash_files([]) == []


def run_child(code, *args, timeout=120):
    """Runs `code` in a fresh interpreter (its own limits and signals);
    returns the completed process."""
    return subprocess.run([sys.executable, "-c", code, *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


# Lowers the soft RLIMIT_NOFILE, then hashes more files than the limit with
# many jobs; prints how many results differ from hashlib's and the first.
LIMIT_CHILD = r"""
import hashlib, resource, sys
import mbhash
limit, jobs, count, folder = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
paths = [f"{folder}/f{i:05}" for i in range(count)]
got = mbhash.hash_files(paths, jobs=jobs)
want = []
for p in paths:
    with open(p, "rb") as f:
        want.append(hashlib.file_digest(f, "sha256").digest())
bad = [(p, g) for p, g, w in zip(paths, got, want) if g != w]
print(len(bad), repr(bad[:1]))
"""


@pytest.mark.parametrize("limit,jobs,count", [(64, 4, 300), (64, 64, 300), (1024, 64, 2100)])
def test_more_files_than_descriptors(limit, jobs, count, tmp_path, rng):
    # Each reader holds one file at a time, its descriptor from a budget
    # under the limit: no readable file is an EMFILE error, whatever `jobs`.
    # Files of a few hundred KiB stay open a while as they are read (the
    # paths are hard links to a few of them, to keep the test small).
    sources = []
    for k in range(8):
        src = tmp_path / f"source{k}"
        src.write_bytes(rng.randbytes(rng.randrange(200_000, 600_000)))
        sources.append(src)
    for i in range(count):
        os.link(sources[i % len(sources)], tmp_path / f"f{i:05}")
    r = run_child(LIMIT_CHILD, limit, jobs, count, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "0", r.stdout


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "fifo"
    os.mkfifo(p)
    return p


def test_timeout_for_a_fifo_without_writer_and_an_endless_device(fifo, tmp_path):
    p = tmp_path / "a"
    p.write_bytes(b"abc")
    for jobs in (1, 3):
        got = mbhash.hash_files([p, fifo, "/dev/zero", p], jobs=jobs, timeout=1.0)
        assert got[0] == got[3] == reference("sha256", b"abc")
        for e, name in ((got[1], str(fifo)), (got[2], "/dev/zero")):
            assert isinstance(e, TimeoutError), e
            assert e.errno == errno.ETIMEDOUT and e.filename == name
            assert "time limit" in str(e)


def test_a_fifo_is_read_whole_from_a_late_writer(fifo, rng):
    # Read as a blocking open and read would: not the empty input that a
    # FIFO without a writer reads as.
    data = rng.randbytes(300_000)

    def write():
        time.sleep(0.1)
        try:
            with open(fifo, "wb") as w:
                for k in range(0, len(data), 70_000):
                    w.write(data[k:k + 70_000])
                    w.flush()
                    time.sleep(0.03)
        except BrokenPipeError:
            pass  # the reader went away: the test failed anyway
    t = threading.Thread(target=write, daemon=True)
    t.start()
    try:
        got = mbhash.hash_files([fifo], timeout=60)
    finally:
        t.join(timeout=5)
        if t.is_alive():
            # hash_files failed before it opened the FIFO: let the writer's
            # open through, then break its pipe.
            fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
            t.join(timeout=0.5)
            os.close(fd)
            t.join(timeout=30)
    assert got == [reference("sha256", data)]


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_bad_timeout(bad):
    with pytest.raises(ValueError, match="timeout"):
        mbhash.hash_files([], timeout=bad)


# Hashes a path that never ends (a FIFO with no writer, /dev/zero) until
# SIGINT; prints the time KeyboardInterrupt was caught and the threads and
# descriptors before and after.
INTERRUPT_CHILD = r"""
import json, os, sys, time
import mbhash
def counts():
    return len(os.listdir("/proc/self/task")), len(os.listdir("/proc/self/fd"))
before = counts()
print("ready", flush=True)
try:
    mbhash.hash_files([sys.argv[1]], jobs=2)
    print("returned")
except KeyboardInterrupt:
    caught = time.monotonic()
    time.sleep(0.2)  # threads that outlived the call would show here
    print(json.dumps({"caught": caught, "before": before, "after": counts()}), flush=True)
"""


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_keyboard_interrupt_stops_a_run_that_never_ends(kind, fifo):
    path = fifo if kind == "fifo" else "/dev/zero"
    latencies = []
    # The bound is 100 ms; a loaded machine may miss it once or twice, so
    # the best of three attempts counts (every one must be interrupted).
    for _ in range(3):
        child = subprocess.Popen([sys.executable, "-c", INTERRUPT_CHILD, str(path)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)  # well inside hash_files
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        try:
            out, err = child.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            pytest.fail("hash_files went on after SIGINT")
        assert out.startswith("{"), (out, err)
        report = json.loads(out)
        assert report["after"] == report["before"], "no thread or descriptor left behind"
        latencies.append(report["caught"] - sent)
        if latencies[-1] < 0.1:
            break
    assert min(latencies) < 0.1, latencies
