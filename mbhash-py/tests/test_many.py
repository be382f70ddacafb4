"""hash_many over buffer-protocol objects of every kind, and many of them."""

import array
import hashlib
import mmap

import pytest

import mbhash
from conftest import ALGOS, engines_of, family_of, import_or_skip, reference


@pytest.mark.parametrize("algo", ALGOS)
def test_mixed_buffer_types(algo, rng):
    base = rng.randbytes(3000)
    ints = array.array("I", range(1000))
    m = mmap.mmap(-1, 4096)
    m.write(base[:4096 - 904])
    items = [
        base[:100],                       # bytes
        bytearray(base[:200]),            # bytearray
        memoryview(base)[17:2017],        # a contiguous slice of a memoryview
        memoryview(bytearray(base[:64])), # a writable memoryview
        ints,                             # array.array of uint32
        m,                                # mmap
        b"",                              # empty
        bytearray(),                      # empty, mutable
        memoryview(ints).cast("B"),       # a cast view
    ]
    expected = [reference(algo, x) for x in items]
    assert mbhash.hash_many(algo, items) == expected
    # Any iterable will do.
    assert mbhash.hash_many(algo, iter(items)) == expected
    assert mbhash.hash_many(algo, tuple(items)) == expected
    m.close()


@pytest.mark.parametrize("algo", ALGOS)
def test_numpy_arrays(algo):
    np = import_or_skip("numpy")
    arrays = [
        np.arange(1000, dtype=np.float64),
        np.arange(4096, dtype=np.uint8),
        np.zeros((17, 33), dtype=np.int16),         # 2-D, C-contiguous
        np.arange(10, dtype=np.complex128),
        np.arange(1000, dtype=np.int32)[100:900],    # contiguous slice
        np.asfortranarray(np.ones((1, 50))),         # 1 row: also C-contiguous
    ]
    assert mbhash.hash_many(algo, arrays) == [hashlib.new(algo, a.tobytes()).digest() for a in arrays]
    # A strided view is refused with numpy's own error, as hashlib refuses it.
    with pytest.raises(ValueError, match="not C-contiguous"):
        hashlib.sha256(np.arange(100)[::2])
    with pytest.raises(ValueError, match="not C-contiguous"):
        mbhash.hash_many(algo, [np.arange(100)[::2]])


@pytest.mark.parametrize("algo", ALGOS)
def test_ten_thousand_messages(algo, rng):
    # Random lengths around the one- and two-block paths and beyond.
    msgs = [rng.randbytes(rng.choice([rng.randrange(130), rng.randrange(300), rng.randrange(3000)]))
            for _ in range(10_000)]
    got = mbhash.hash_many(algo, msgs)
    assert len(got) == 10_000
    assert got == [reference(algo, m) for m in msgs]


@pytest.mark.parametrize("algo", ALGOS)
def test_every_engine_and_lane_fill(algo, rng):
    for engine in engines_of(family_of(algo)):
        for n in (1, 2, 3, 7, 8, 9, 15, 16, 17, 33):
            msgs = [rng.randbytes(rng.randrange(1, 600)) for _ in range(n)]
            assert mbhash.hash_many(algo, msgs, engine=engine) == [reference(algo, m) for m in msgs], (engine, n)


def test_empty_and_one():
    assert mbhash.hash_many("sha256", []) == []
    assert mbhash.hash_many("sha256", [b"abc"]) == [hashlib.sha256(b"abc").digest()]
