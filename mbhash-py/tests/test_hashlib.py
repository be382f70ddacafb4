"""hashlib compatibility: every algorithm against hashlib, on random data
cut into random chunks, with every engine; the object's attributes and
methods; hmac and hashlib.file_digest."""

import hashlib
import hmac
import io

import pytest

import mbhash
from conftest import ALGOS, engines_of, family_of, reference, skip_or_require

LENGTHS = [0, 1, 55, 56, 63, 64, 65, 111, 112, 119, 120, 127, 128, 129, 239, 240,
           255, 256, 1000, 2047, 2048, 4096, 10007, 65536 + 3]


@pytest.mark.parametrize("algo", ALGOS)
def test_one_shot_every_length(algo, rng):
    for n in LENGTHS:
        data = rng.randbytes(n)
        assert mbhash.new(algo, data).digest() == reference(algo, data), n
        assert getattr(mbhash, algo)(data).digest() == reference(algo, data), n


@pytest.mark.parametrize("algo", ALGOS)
def test_random_chunkings(algo, rng):
    for _ in range(40):
        data = rng.randbytes(rng.choice([rng.randrange(300), rng.randrange(20000)]))
        h = mbhash.new(algo)
        i = 0
        while i < len(data):
            step = rng.choice([1, 3, 63, 64, 65, 127, 128, 129, rng.randrange(5000)])
            h.update(data[i:i + step])
            i += step
        assert h.digest() == reference(algo, data)
        assert h.hexdigest() == hashlib.new(algo, data).hexdigest()


@pytest.mark.parametrize("algo", ALGOS)
def test_every_engine(algo, rng):
    data = rng.randbytes(5000)
    for engine in engines_of(family_of(algo)):
        h = mbhash.new(algo, data[:1234], engine=engine)
        assert h.engine == engine
        h.update(data[1234:])
        assert h.digest() == reference(algo, data), engine


@pytest.mark.parametrize("algo", ALGOS)
def test_attributes_match_hashlib(algo):
    ours, theirs = mbhash.new(algo), hashlib.new(algo)
    assert ours.name == theirs.name == algo
    assert ours.digest_size == theirs.digest_size
    assert ours.block_size == theirs.block_size
    assert algo in repr(ours)


def test_names():
    assert mbhash.new("sha512-256").name == "sha512_256"
    assert mbhash.new("SHA512_224").name == "sha512_224"
    assert mbhash.new("SHA256").name == "sha256"
    assert mbhash.new("SHA1").name == "sha1"
    assert mbhash.new("MD5").name == "md5"
    assert mbhash.new("SM3").name == "sm3"
    assert mbhash.algorithms_available == {"md5", "sha1", "sm3", "sha224", "sha256", "sha384",
                                           "sha512", "sha512_224", "sha512_256"}


def test_keywords():
    # hashlib's spellings of the arguments.
    assert mbhash.sha256(data=b"abc").digest() == hashlib.sha256(b"abc").digest()
    assert mbhash.new("sha384", data=b"abc").digest() == hashlib.sha384(b"abc").digest()
    assert mbhash.sha256(b"abc", usedforsecurity=False).digest() == hashlib.sha256(b"abc").digest()
    assert mbhash.sha256().digest() == hashlib.sha256().digest()
    # usedforsecurity=False is how FIPS-minded code asks for MD5 and SHA-1.
    assert mbhash.md5(b"abc", usedforsecurity=False).digest() == hashlib.md5(b"abc").digest()
    assert mbhash.sha1(b"abc", usedforsecurity=False).digest() == hashlib.sha1(b"abc").digest()
    assert mbhash.new("md5", b"abc", usedforsecurity=False).digest() == hashlib.md5(b"abc").digest()
    assert mbhash.sm3(data=b"abc", usedforsecurity=True).hexdigest() == (
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")


def test_sm3_gbt32905():
    # GB/T 32905-2016 appendix A, examples 1 and 2 (no hashlib needed).
    assert mbhash.sm3(b"abc").hexdigest() == (
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0")
    assert mbhash.new("sm3", b"abcd" * 16).hexdigest() == (
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732")
    assert mbhash.hash_many("sm3", [b"abc", b"abcd" * 16]) == [
        mbhash.sm3(b"abc").digest(), mbhash.sm3(b"abcd" * 16).digest()]


@pytest.mark.parametrize("algo", ALGOS)
def test_digest_does_not_finish_and_copy_is_independent(algo):
    h = mbhash.new(algo, b"hello ")
    first = h.digest()
    assert h.digest() == first  # digest() leaves the state as it was
    c = h.copy()
    h.update(b"world")
    c.update(b"there")
    assert first == reference(algo, b"hello ")
    assert h.digest() == reference(algo, b"hello world")
    assert c.digest() == reference(algo, b"hello there")
    assert c.name == h.name and c.engine == h.engine


@pytest.mark.parametrize("algo", ALGOS)
def test_hmac(algo, rng):
    ctor = getattr(mbhash, algo)
    for key_len in (0, 16, 64, 128, 200):
        key = rng.randbytes(key_len)
        msg = rng.randbytes(rng.randrange(3000))
        ours = hmac.new(key, msg, ctor)
        # hmac really runs on mbhash objects (it does not divert the
        # constructor to OpenSSL).
        assert isinstance(ours._inner, mbhash.Hash)
        assert ours.digest() == hmac.new(key, msg, algo).digest()
        assert hmac.digest(key, msg, ctor) == hmac.digest(key, msg, algo)


@pytest.mark.parametrize("algo", ALGOS)
def test_file_digest(algo, rng, tmp_path):
    if not hasattr(hashlib, "file_digest"):
        skip_or_require("hashlib.file_digest", "it is new in Python 3.11")
    ctor = getattr(mbhash, algo)
    for n in (0, 1, 5000, (1 << 18) + 17, 3 << 18):
        data = rng.randbytes(n)
        p = tmp_path / f"f{n}"
        p.write_bytes(data)
        with open(p, "rb") as f:
            d = hashlib.file_digest(f, ctor)
        assert isinstance(d, mbhash.Hash)
        assert d.digest() == reference(algo, data), n
        # io.BytesIO takes the getbuffer() path: a memoryview.
        assert hashlib.file_digest(io.BytesIO(data), ctor).digest() == reference(algo, data)
