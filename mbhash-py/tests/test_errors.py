"""Bad input is an exception, never a crash or a wrong answer."""

import pytest

import mbhash


@pytest.mark.parametrize("bad", ["text", 1, 1.5, None, object(), [b"a"], {"a": 1}])
def test_non_buffers_are_type_errors(bad):
    # None included: hashlib refuses sha256(None) too.
    with pytest.raises(TypeError):
        mbhash.sha256(bad)
    with pytest.raises(TypeError):
        mbhash.sha256().update(bad)
    with pytest.raises(TypeError):
        mbhash.hash_many("sha256", [b"ok", bad])
    with pytest.raises(TypeError):
        mbhash.crc32c(bad)


def test_str_is_refused_as_hashlib_does():
    with pytest.raises(TypeError, match="encoded"):
        mbhash.sha256("abc")
    with pytest.raises(TypeError, match="item 1"):
        mbhash.hash_many("sha256", [b"a", "b"])


def test_not_iterable():
    with pytest.raises(TypeError):
        mbhash.hash_many("sha256", 5)
    with pytest.raises(TypeError):
        mbhash.hash_files(5)


@pytest.mark.parametrize("name", ["md4", "blake2b", "sha3_256", "", "sha-1", "sha-256", "sha512/256",
                                  "sha256 ", "sm3 "])
def test_unknown_algorithm_is_value_error(name):
    with pytest.raises(ValueError, match="unsupported hash type"):
        mbhash.new(name)
    with pytest.raises(ValueError):
        mbhash.hash_many(name, [b""])
    with pytest.raises(ValueError):
        mbhash.hash_files([], name)


def test_unknown_engine_is_value_error():
    for call in (
        lambda: mbhash.sha256(engine="sse9"),
        lambda: mbhash.sha512(engine="shani"),  # a SHA-256 engine name
        lambda: mbhash.hash_many("sha384", [b""], engine="nope"),
        lambda: mbhash.hash_files([], engine="nope"),
        lambda: mbhash.crc32c(b"", engine="nope"),
        lambda: mbhash.set_engine("sha256", "nope"),
        lambda: mbhash.set_engine("md4", "auto"),
        lambda: mbhash.md5(engine="shani"),  # a SHA-1/SHA-256 engine, not MD5's
        lambda: mbhash.sm3(engine="shani-x2"),
        lambda: mbhash.sha1(engine="avx2-x1"),  # a SHA-512 engine
        lambda: mbhash.hash_many("sha1", [b""], engine="nope"),
        lambda: mbhash.hash_files([], "md5", engine="nope"),
        lambda: mbhash.set_engine("sm3", "shani"),
        lambda: mbhash.get_engine("nope"),
    ):
        with pytest.raises(ValueError, match="valid|unknown"):
            call()


def test_bad_numbers():
    # crc32c's start value is masked as zlib's (test_compat.py).
    with pytest.raises(OverflowError):
        mbhash.crc32c_combine(0, 0, -1)
    with pytest.raises(ValueError):
        mbhash.hash_files([], jobs=0)
    with pytest.raises((OverflowError, TypeError)):
        mbhash.hash_files([], jobs=-1)


def test_not_picklable():
    import pickle
    with pytest.raises(TypeError):
        pickle.dumps(mbhash.sha256(b"x"))


def test_noncontiguous_memoryview_is_buffer_error():
    # memoryview's own error, as hashlib reports it (test_compat.py).
    view = memoryview(bytes(range(100)))[::3]
    with pytest.raises(BufferError):
        mbhash.sha256(view)
    with pytest.raises(BufferError):
        mbhash.hash_many("sha256", [view])
