"""mbhash takes what hashlib takes, refuses what it refuses, with the same
errors: buffer exports, argument rules, the immutable type, the algorithm
sets; crc32c's start value as zlib.crc32 takes it."""

import array
import ctypes
import hashlib
import sys
import zlib

import pytest

import mbhash
from conftest import ALGOS, import_or_skip


class Pair(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int32), ("b", ctypes.c_double)]


def exporters():
    """Objects hashlib accepts whose exports have no shape or strides, or
    several dimensions: (label, object)."""
    objs = [
        ("memoryview 0-d", memoryview(b"12345678").cast("q", ())),
        ("memoryview 2-d", memoryview(b"abcdef").cast("B", (2, 3))),
        ("ctypes structure", Pair(7, 2.5)),
        ("ctypes string buffer", ctypes.create_string_buffer(b"abc", 10)),
        ("ctypes array", (ctypes.c_uint16 * 5)(1, 2, 3, 4, 5)),
        ("array", array.array("d", [1.0, 2.0])),
        ("empty memoryview", memoryview(b"")),
    ]
    return objs


def numpy_exporters():
    np = import_or_skip("numpy")
    return [
        ("numpy 0-d", np.array(7)),
        ("numpy float64", np.float64(1.5)),
        ("numpy 2-d", np.arange(12, dtype=np.uint16).reshape(3, 4)),
        ("numpy empty", np.zeros(0)),
    ]


def check_accepted(label, obj):
    want = bytes(memoryview(obj).cast("B")) if memoryview(obj).ndim else bytes(memoryview(obj))
    for algo in ALGOS:
        assert mbhash.new(algo, obj).digest() == hashlib.new(algo, obj).digest(), label
        h = mbhash.new(algo)
        h.update(obj)
        assert h.digest() == hashlib.new(algo, want).digest(), label
    assert mbhash.hash_many("sha256", [obj, obj]) == [hashlib.sha256(obj).digest()] * 2, label
    assert mbhash.crc32c(obj) == mbhash.crc32c(want), label


@pytest.mark.parametrize("label", [label for label, _ in exporters()])
def test_exports_hashlib_accepts(label):
    check_accepted(label, dict(exporters())[label])


def test_numpy_exports_hashlib_accepts():
    for label, obj in numpy_exporters():
        check_accepted(label, obj)


def raised(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e)
    return None


def test_non_contiguous_errors_are_hashlibs():
    np = import_or_skip("numpy")
    for obj in (memoryview(bytes(range(100)))[::3], np.arange(10)[::2],
                np.zeros((2, 3), order="F"), np.zeros((4, 4))[:, :2]):
        want = raised(lambda: hashlib.sha256(obj))
        assert want is not None
        assert raised(lambda: mbhash.sha256(obj)) is want
        assert raised(lambda: mbhash.sha256().update(obj)) is want
        assert raised(lambda: mbhash.hash_many("sha256", [obj])) is want
        assert raised(lambda: mbhash.crc32c(obj)) is raised(lambda: zlib.crc32(obj))


@pytest.mark.parametrize("bad", [None, 1, 1.5, object(), [b"a"]])
def test_non_buffers_as_hashlib(bad):
    with pytest.raises(TypeError, match="buffer API required"):
        hashlib.sha256(bad)
    with pytest.raises(TypeError, match="buffer API required"):
        mbhash.sha256(bad)
    with pytest.raises(TypeError, match="buffer API required"):
        mbhash.new("sha256", bad)
    with pytest.raises(TypeError, match="buffer API required"):
        mbhash.sha256().update(bad)
    with pytest.raises(TypeError):
        mbhash.sha256(string=bad)


def test_type_is_immutable_as_hashlibs():
    theirs = type(hashlib.sha256())
    with pytest.raises(TypeError, match="immutable type"):
        theirs.hexdigest = lambda self: "x"
    with pytest.raises(TypeError, match="immutable type"):
        mbhash.Hash.hexdigest = lambda self: "x"
    with pytest.raises(TypeError, match="immutable type"):
        mbhash.Hash.value = False
    with pytest.raises(TypeError):
        del mbhash.Hash.digest
    assert mbhash.sha256(b"abc").hexdigest() == hashlib.sha256(b"abc").hexdigest()
    # Objects take no new attributes either.
    with pytest.raises(AttributeError):
        mbhash.sha256().extra = 1
    assert type(mbhash.sha256()).__flags__ & (1 << 8)  # Py_TPFLAGS_IMMUTABLETYPE


def test_string_keyword():
    # The keyword of CPython 3.10 to 3.13's constructors.
    if sys.version_info < (3, 14):
        assert hashlib.sha256(string=b"abc").digest() == hashlib.sha256(b"abc").digest()
    for algo in ALGOS:
        want = hashlib.new(algo, b"abc").digest()
        assert getattr(mbhash, algo)(string=b"abc").digest() == want
        assert mbhash.new(algo, string=b"abc").digest() == want
        assert getattr(mbhash, algo)(data=b"abc").digest() == want
    with pytest.raises(TypeError, match="mutually exclusive"):
        mbhash.sha256(b"a", string=b"b")
    with pytest.raises(TypeError, match="mutually exclusive"):
        mbhash.sha256(data=b"a", string=b"b")
    with pytest.raises(TypeError, match="mutually exclusive"):
        mbhash.new("sha256", b"a", string=b"b")
    with pytest.raises(TypeError, match="buffer API required"):
        mbhash.sha256(string=None)


class Truth:
    def __init__(self, value):
        self.value = value

    def __bool__(self):
        if self.value is None:
            raise ZeroDivisionError("no truth value")
        return self.value


@pytest.mark.parametrize("flag", [True, False, 0, 1, "", "x", None, [], Truth(False)])
def test_usedforsecurity_any_truth_value(flag):
    # CPython's _hashlib and _sha2 convert it with PyObject_IsTrue.
    hashlib.sha256(b"abc", usedforsecurity=flag)
    assert mbhash.sha256(b"abc", usedforsecurity=flag).digest() == hashlib.sha256(b"abc").digest()
    assert mbhash.new("sha384", b"abc", usedforsecurity=flag).digest() == hashlib.sha384(b"abc").digest()


def test_usedforsecurity_errors_propagate():
    with pytest.raises(ZeroDivisionError):
        hashlib.sha256(b"abc", usedforsecurity=Truth(None))
    with pytest.raises(ZeroDivisionError):
        mbhash.sha256(b"abc", usedforsecurity=Truth(None))
    with pytest.raises(ZeroDivisionError):
        mbhash.new("sha256", usedforsecurity=Truth(None))
    # Keyword-only, as in hashlib.
    with pytest.raises(TypeError):
        hashlib.sha256(b"abc", True)
    with pytest.raises(TypeError):
        mbhash.sha256(b"abc", True)


def test_algorithm_sets():
    for attr in ("algorithms_available", "algorithms_guaranteed"):
        names = getattr(mbhash, attr)
        assert type(names) is frozenset, attr
        assert names == set(ALGOS), attr
        for name in names:
            assert mbhash.new(name).name == name == hashlib.new(name).name
    assert mbhash.algorithms_guaranteed <= mbhash.algorithms_available
    assert mbhash.__version__


# Start values zlib.crc32 masks to 32 bits (its `unsigned_int(bitwise=True)`
# argument): negative, 2**32 and above, huge, bool, __index__ objects.
class Index:
    def __index__(self):
        return -1


START_VALUES = [0, 1, -1, -2, 0xFFFFFFFF, 1 << 32, (1 << 32) + 5, (1 << 64) + 5, -(1 << 70),
                (1 << 200) - 1, True, Index()]


@pytest.mark.parametrize("value", START_VALUES, ids=repr)
def test_crc32c_start_value_masked_as_zlib(value):
    as_int = value.__index__()
    low = as_int & 0xFFFFFFFF
    data = b"123456789"
    # zlib's rule, checked on zlib itself.
    assert zlib.crc32(data, value) == zlib.crc32(data, low)
    assert mbhash.crc32c(data, value) == mbhash.crc32c(data, low)
    assert mbhash.crc32c(data, value=value) == mbhash.crc32c(data, low)


def test_crc32c_minus_one_is_all_ones():
    assert mbhash.crc32c(b"abc", -1) == mbhash.crc32c(b"abc", 0xFFFFFFFF)
    assert mbhash.crc32c(b"abc", 1 << 32) == mbhash.crc32c(b"abc")


@pytest.mark.parametrize("bad", [1.5, "1", None, b"1"])
def test_crc32c_start_value_type_errors_as_zlib(bad):
    with pytest.raises(TypeError):
        zlib.crc32(b"a", bad)
    with pytest.raises(TypeError):
        mbhash.crc32c(b"a", bad)
