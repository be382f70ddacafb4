"""Cases of CPython's Lib/test/test_hashlib.py that apply to a third-party
module of SHA-2 constructors, ported to mbhash in our own words. Each test
names the CPython case it follows."""

import array
import hashlib
import threading

import pytest

import mbhash
from conftest import ALGOS

CONSTRUCTORS = [getattr(mbhash, a) for a in ALGOS] + [
    (lambda name: lambda *a, **k: mbhash.new(name, *a, **k))(a) for a in ALGOS
]


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_hash_array(cons):
    # CPython: test_hash_array (an array.array of signed bytes is a buffer).
    a = array.array("b", range(10))
    assert cons(a).digest() == hashlib.new(cons().name, bytes(a)).digest()


def test_algorithms_guaranteed_and_available():
    # CPython: test_algorithms_guaranteed, test_algorithms_available.
    assert mbhash.algorithms_guaranteed <= mbhash.algorithms_available
    for name in mbhash.algorithms_available:
        assert mbhash.new(name).name == name


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_usedforsecurity_true_false(cons):
    # CPython: test_usedforsecurity_true, test_usedforsecurity_false.
    for flag in (True, False):
        assert cons(usedforsecurity=flag).digest() == cons().digest()
        assert cons(b"abc", usedforsecurity=flag).digest() == cons(b"abc").digest()


def test_unknown_hash():
    # CPython: test_unknown_hash.
    with pytest.raises(ValueError):
        mbhash.new("spam spam spam spam spam")
    with pytest.raises(TypeError):
        mbhash.new(1)


def test_new_upper_to_lower():
    # CPython: test_new_upper_to_lower.
    assert mbhash.new("SHA256").name == "sha256"


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_hexdigest(cons):
    # CPython: test_hexdigest.
    h = cons()
    assert isinstance(h.digest(), bytes)
    assert h.digest().hex() == h.hexdigest()


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_name_attribute(cons):
    # CPython: test_name_attribute.
    h = cons()
    assert isinstance(h.name, str)
    assert h.name in mbhash.algorithms_available
    assert mbhash.new(h.name).name == h.name


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_large_update(cons):
    # CPython: test_large_update (updates around the block size and one
    # past the GIL threshold, as bytes and as a memoryview; a copy goes on).
    aas, bees, cees, dees = b"a" * 128, b"b" * 127, b"c" * 126, b"d" * 2048
    m1 = cons()
    m1.update(aas)
    m1.update(bees)
    m1.update(cees)
    m1.update(memoryview(dees))
    m3 = m1.copy()
    m2 = cons(aas + bees + cees + dees)
    assert m1.digest() == m2.digest() == m3.digest()
    m4 = cons(memoryview(aas + bees + cees + dees))
    assert m4.digest() == m2.digest()


@pytest.mark.parametrize("name,block,digest", [
    ("md5", 64, 16), ("sha1", 64, 20), ("sm3", 64, 32),
    ("sha224", 64, 28), ("sha256", 64, 32), ("sha384", 128, 48), ("sha512", 128, 64),
])
def test_blocksize_name(name, block, digest):
    # CPython: test_blocksize_name (md5, sha1), test_blocksize_name_sha2
    # (check_blocksize_name); SM3's sizes as OpenSSL's hashlib gives them.
    for h in (getattr(mbhash, name)(), mbhash.new(name)):
        assert h.block_size == block
        assert h.digest_size == digest
        assert len(h.digest()) == digest
        assert h.name == name


# CPython: test_case_md5_0..2, test_case_sha1_0..3, test_case_sha224_0..3,
# test_case_sha256_0..3, test_case_sha384_0..3, test_case_sha512_0..3: the
# empty message, "abc", the 448-bit and the 896-bit FIPS 180 messages, and a
# million "a"s (for MD5: RFC 1321's alphabet message), against the published
# digests.
LONG_448 = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
LONG_896 = (b"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
            b"hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
CASES = {
    "md5": [
        (b"", "d41d8cd98f00b204e9800998ecf8427e"),
        (b"abc", "900150983cd24fb0d6963f7d28e17f72"),
        (b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"),
    ],
    "sha1": [
        (b"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        (b"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (LONG_448, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        (b"a" * 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
    ],
    "sha224": [
        (b"", "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f"),
        (b"abc", "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"),
        (LONG_448, "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525"),
        (b"a" * 1000000, "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67"),
    ],
    "sha256": [
        (b"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (b"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (LONG_448, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (b"a" * 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ],
    "sha384": [
        (b"", "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da"
              "274edebfe76f65fbd51ad2f14898b95b"),
        (b"abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed"
                 "8086072ba1e7cc2358baeca134c825a7"),
        (LONG_896, "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712"
                   "fcc7c71a557e2db966c3e9fa91746039"),
        (b"a" * 1000000, "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b"
                         "07b8b3dc38ecc4ebae97ddd87f3d8985"),
    ],
    "sha512": [
        (b"", "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
              "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
        (b"abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                 "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        (LONG_896, "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
                   "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
        (b"a" * 1000000, "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
                         "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    for data, want in CASES[name]:
        assert getattr(mbhash, name)(data).hexdigest() == want
        assert mbhash.new(name, data).hexdigest() == want
        # CPython's check() also feeds the message in pieces.
        h = mbhash.new(name)
        for i in range(0, len(data), 65537):
            h.update(data[i:i + 65537])
        assert h.hexdigest() == want


def test_gil():
    # CPython: test_gil (updates below, at and above the 2 KiB threshold
    # at which the GIL is released give the same digest).
    gil_minsize = 2048
    for name in ALGOS:
        m = mbhash.new(name, usedforsecurity=False)
        m.update(b"1")
        m.update(b"#" * gil_minsize)
        m.update(b"1")
        assert m.digest() == hashlib.new(name, b"1" + b"#" * gil_minsize + b"1").digest()
        m = mbhash.new(name, b"x" * gil_minsize, usedforsecurity=False)
        m.update(b"1")
        assert m.digest() == hashlib.new(name, b"x" * gil_minsize + b"1").digest()
    m = mbhash.sha256()
    m.update(b"1")
    m.update(b"#" * gil_minsize)
    m.update(b"1")
    assert m.hexdigest() == "1cfceca95989f51f658e3f3ffe7f1cd43726c9e088c13ee10b46f57cef135b94"


def test_threaded_hashing():
    # CPython: test_threaded_hashing. Threads update one object with chunks
    # of a repeated 8-byte pattern, each thread its own chunk size (a
    # multiple of 8): whatever the interleaving, the bytes absorbed are the
    # pattern repeated, so the digest is known. A torn or lost update would
    # change it.
    smallest = b"swineflu"
    data = smallest * 200000
    sizes = [len(smallest) * k for k in (1, 4, 16, 64, 300, 1000, 3000)]
    hasher = mbhash.sha256()

    def feed(chunk):
        for i in range(0, len(data), chunk):
            hasher.update(data[i:i + chunk])

    threads = [threading.Thread(target=feed, args=(s,)) for s in sizes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert hasher.hexdigest() == hashlib.sha256(data * len(sizes)).hexdigest()


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_no_unicode(cons):
    # CPython: test_no_unicode.
    with pytest.raises(TypeError):
        cons("spam")
    with pytest.raises(TypeError):
        cons().update("spam")


def test_readonly_types():
    # CPython: test_readonly_types.
    for cons in CONSTRUCTORS:
        with pytest.raises(TypeError, match="immutable type"):
            type(cons()).value = False


def test_hash_disallow_instantiation():
    # CPython: test_hash_disallow_instantiation (objects come from the
    # constructors only).
    with pytest.raises(TypeError):
        type(mbhash.sha256())()


@pytest.mark.parametrize("cons", CONSTRUCTORS)
def test_clinic_signature(cons):
    # CPython: test_clinic_signature and test_clinic_signature_errors
    # (data positional or data=, string= as 3.10-3.13 name it, not both).
    want = cons(b"").digest()
    assert cons(string=b"").digest() == want
    assert cons(data=b"").digest() == want
    with pytest.raises(TypeError, match="mutually exclusive"):
        cons(b"", string=b"")
    with pytest.raises(TypeError, match="mutually exclusive"):
        cons(data=b"", string=b"")
