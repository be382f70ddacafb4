"""Threads: the GIL is released while hashing (another thread runs, and
hashes, meanwhile), buffers stay pinned while they are hashed, and one
object shared by threads stays consistent.

The overlap tests cannot pass with the GIL held: the hashing thread reads
the clock just before and just after one long call (run on the slow scalar
engine), and another thread records the clock at every step of its own
loop. With the GIL held for the whole call, no step of the other thread can
fall in the middle half of the call: a step needs the GIL, and the only
moments it is free around the call are before and after it. They cannot
flake on a loaded machine either: the call is made longer (up to a few
times) until the other thread, once it is runnable, has been given a slice
of CPU inside it.
"""

import threading
import time

import mbhash


def overlaps(long_call, other_step, attempts=4, size=16 << 20):
    """True once `other_step` runs in the middle half of `long_call(size)`,
    in another thread, doubling size after each attempt that saw no such
    step."""
    for _ in range(attempts):
        window = {}
        steps = []
        stop = threading.Event()

        def other():
            while not stop.is_set():
                other_step()
                steps.append(time.perf_counter())

        def hasher():
            window["t0"] = time.perf_counter()
            long_call(size)
            window["t1"] = time.perf_counter()

        t_other = threading.Thread(target=other)
        t_other.start()
        while not steps:  # the other thread is running
            time.sleep(0.001)
        t_hash = threading.Thread(target=hasher)
        t_hash.start()
        t_hash.join()
        stop.set()
        t_other.join()
        t0, t1 = window["t0"], window["t1"]
        lo, hi = t0 + (t1 - t0) / 4, t1 - (t1 - t0) / 4
        if any(lo < t < hi for t in steps):
            return True
        size *= 2
    return False


def small_hash():
    assert mbhash.sha256(b"x" * 100).digest()


def test_update_releases_the_gil():
    def long_call(size):
        data = bytes(size)
        mbhash.sha256(data, engine="scalar").digest()
    assert overlaps(long_call, small_hash)


def test_hash_many_releases_the_gil():
    def long_call(size):
        bufs = [bytes(size // 4)] * 4
        mbhash.hash_many("sha512", bufs, engine="scalar")
    assert overlaps(long_call, small_hash)


def test_hash_files_releases_the_gil(tmp_path):
    p = tmp_path / "big"

    def long_call(size):
        p.write_bytes(bytes(size))
        mbhash.hash_files([p], jobs=1, engine="scalar")
    assert overlaps(long_call, small_hash)


def test_crc32c_releases_the_gil():
    def long_call(size):
        mbhash.crc32c(bytes(size * 4), engine="table")
    assert overlaps(long_call, small_hash)


def test_two_threads_hash_at_once():
    # Both threads hash long messages; each sees the other hash meanwhile.
    def long_call(size):
        mbhash.sha256(bytes(size), engine="scalar").digest()

    def other_step():
        mbhash.sha256(bytes(1 << 16)).digest()  # >= 2048: releases the GIL too
    assert overlaps(long_call, other_step)


def test_buffer_cannot_be_resized_while_hashed():
    # A bytearray being hashed is exported: resizing it meanwhile is a
    # BufferError (never freed memory under the hash).
    size = 16 << 20
    for _ in range(4):
        ba = bytearray(size)
        window, tries = {}, []
        stop = threading.Event()

        def resizer():
            while not stop.is_set():
                t = time.perf_counter()
                try:
                    ba.append(1)
                    ba.pop()
                    tries.append((t, True))
                except BufferError:
                    tries.append((t, False))

        r = threading.Thread(target=resizer)
        r.start()
        window["t0"] = time.perf_counter()
        digest = mbhash.hash_many("sha256", [ba], engine="scalar")[0]
        window["t1"] = time.perf_counter()
        stop.set()
        r.join()
        # The resizer may have caught the array between its append and pop
        # when the export was taken.
        assert digest in (mbhash.sha256(bytes(size)).digest(),
                          mbhash.sha256(bytes(size) + b"\x01").digest())
        t0, t1 = window["t0"], window["t1"]
        inside = [ok for t, ok in tries if t0 + (t1 - t0) / 4 < t < t1 - (t1 - t0) / 4]
        assert not any(inside), "a bytearray was resized while it was hashed"
        if inside:
            break
        size *= 2
    assert inside, "the resizer thread never ran during the hash"
    # Released afterwards.
    ba.append(1)


def test_shared_object_updates_are_whole():
    # Two threads update one object with the same chunk (big enough to
    # release the GIL): whatever the interleaving, the result is the hash
    # of all the chunks, each absorbed whole.
    chunk = bytes(range(256)) * 37  # 9472 bytes, not a block multiple
    h = mbhash.sha256()
    n = 200

    def work():
        for _ in range(n):
            h.update(chunk)
            h.digest()  # reads between updates are consistent too
    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert h.digest() == mbhash.sha256(chunk * (3 * n)).digest()
    import hashlib
    assert h.digest() == hashlib.sha256(chunk * (3 * n)).digest()
