"""Typed use of every mbhash API, checked by `mypy --strict` against the
installed stubs (test_typing.py); also run, so that it cannot drift from
what the module does."""

import hashlib
import hmac
import io

import mbhash


def main() -> None:
    h: mbhash.Hash = mbhash.sha256(b"hello ")
    h.update(bytearray(b"world"))
    h.update(memoryview(b"!"))
    digest: bytes = h.digest()
    hexd: str = h.hexdigest()
    assert digest.hex() == hexd
    sizes: tuple[str, int, int, str] = (h.name, h.digest_size, h.block_size, h.engine)
    assert sizes[0] == "sha256"
    c: mbhash.Hash = h.copy()
    assert c.digest() == digest
    for ctor in (mbhash.md5, mbhash.sha1, mbhash.sm3, mbhash.sha224, mbhash.sha256,
                 mbhash.sha384, mbhash.sha512, mbhash.sha512_224, mbhash.sha512_256):
        ctor(b"x", usedforsecurity=False).digest()
        ctor(string=b"x").digest()
        ctor(data=b"x").digest()
    n: mbhash.Hash = mbhash.new("sha512_256", b"data", usedforsecurity=True)
    assert n.name in mbhash.algorithms_available
    names: frozenset[str] = mbhash.algorithms_guaranteed
    assert names <= mbhash.algorithms_available
    mac: str = hmac.new(b"key", b"msg", mbhash.sha256).hexdigest()
    assert mac == hmac.new(b"key", b"msg", "sha256").hexdigest()
    fd = hashlib.file_digest(io.BytesIO(b"abc"), mbhash.sha256)
    assert fd.digest() == hashlib.sha256(b"abc").digest()
    many: list[bytes] = mbhash.hash_many("sha256", [b"a", bytearray(3), memoryview(b"c")])
    assert len(many) == 3
    assert mbhash.hash_many("md5", [b"abc"]) == [hashlib.md5(b"abc").digest()]
    mbhash.set_engine("sha1", "scalar")
    mbhash.set_engine("sha1", None)
    results: list[bytes | OSError] = mbhash.hash_files([__file__], "sha256", jobs=1, timeout=30.0)
    assert isinstance(results[0], bytes)
    crc: int = mbhash.crc32c(b"123456789")
    assert crc == 0xE3069283
    crc = mbhash.crc32c(b"more", crc, engine=None)
    joined: int = mbhash.crc32c_combine(crc, mbhash.crc32c(b"x"), 1)
    assert joined == mbhash.crc32c(b"x", crc)
    z: int = mbhash.crc32(b"123456789", 0)
    assert z == 0xCBF43926 and mbhash.crc32(b"") == 0
    nvme: int = mbhash.crc64_nvme(bytearray(b"123456789"))
    assert nvme == 0xAE8B14860A799888
    r: mbhash.Crc = mbhash.crc("crc64-nvme")
    r.update(memoryview(b"123456789"))
    r2: mbhash.Crc = r.copy()
    fields: tuple[int, bytes, str, str, str, int, int] = (
        r2.value, r.digest(), r.hexdigest(), r.name, r.catalogue_name, r.width, r.digest_size
    )
    assert fields[0] == nvme and mbhash.crc("crc32", b"x").value == mbhash.crc32(b"x")
    for family in mbhash.engines():
        for engine in family["engines"]:
            assert isinstance(engine["name"], str) and isinstance(engine["supported"], bool)
    in_use: str = mbhash.get_engine("sha256")
    mbhash.set_engine("sha256", in_use)
    mbhash.set_engine("sha256", None)
    version: str = mbhash.__version__
    assert version


if __name__ == "__main__":
    main()
