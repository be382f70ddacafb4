"""mbhash.crc32 as zlib.crc32 (every input and start value), crc64_nvme and
the generic mbhash.crc(name) object against a bitwise reference written
here, and the GIL released on large buffers."""

import binascii
import os
import sys
import threading
import time
import zlib

import pytest

import mbhash


def rocksoft(width, poly, init, refl, xorout, data):
    """The Rocksoft model, one bit at a time."""
    mask = (1 << width) - 1
    top = 1 << (width - 1)
    reg = init
    for b in data:
        if refl:
            b = int(f"{b:08b}"[::-1], 2)
        reg ^= b << (width - 8)
        for _ in range(8):
            reg = ((reg << 1) ^ poly) & mask if reg & top else (reg << 1) & mask
    if refl:
        reg = int(f"{reg:0{width}b}"[::-1], 2)
    return reg ^ xorout


ONES64 = (1 << 64) - 1
# name, width, poly, init, reflected, xorout, check
SPECS = [
    ("crc32", 32, 0x04C11DB7, 0xFFFFFFFF, True, 0xFFFFFFFF, 0xCBF43926),
    ("crc32-bzip2", 32, 0x04C11DB7, 0xFFFFFFFF, False, 0xFFFFFFFF, 0xFC891918),
    ("crc32-cksum", 32, 0x04C11DB7, 0, False, 0xFFFFFFFF, 0x765E7680),
    ("crc32c", 32, 0x1EDC6F41, 0xFFFFFFFF, True, 0xFFFFFFFF, 0xE3069283),
    ("crc64-nvme", 64, 0xAD93D23594C93659, ONES64, True, ONES64, 0xAE8B14860A799888),
    ("crc64-xz", 64, 0x42F0E1EBA9EA3693, ONES64, True, ONES64, 0x995DC9BBDF1939FA),
    ("crc64-ecma-182", 64, 0x42F0E1EBA9EA3693, 0, False, 0, 0x6C40DF5F0B497347),
    ("crc64-we", 64, 0x42F0E1EBA9EA3693, ONES64, False, ONES64, 0x62EC59E3F1A4F00A),
    ("crc64-go-iso", 64, 0x1B, ONES64, True, ONES64, 0xB90956C775A41001),
    ("crc64-redis", 64, 0xAD93D23594C935A9, 0, True, 0, 0xE9C6D914C4B8D9CA),
    ("crc16-t10dif", 16, 0x8BB7, 0, False, 0, 0xD0DB),
]

LENGTHS = [0, 1, 2, 7, 8, 15, 16, 31, 32, 63, 64, 65, 127, 128, 255, 256, 511, 512, 513,
           1023, 4095, 4096, 4097, 6000]


def test_crc32_is_zlib_crc32(rng):
    assert mbhash.crc32(b"123456789") == 0xCBF43926 == zlib.crc32(b"123456789")
    for n in LENGTHS + [65535, 65536, 65537, 1 << 20]:
        data = rng.randbytes(n)
        assert mbhash.crc32(data) == zlib.crc32(data), n
        for value in [0, 1, 0xFFFFFFFF, rng.getrandbits(32), -1, -12345, 1 << 32,
                      (1 << 100) + 7, -(1 << 70), True]:
            assert mbhash.crc32(data, value) == zlib.crc32(data, value), (n, value)
            assert mbhash.crc32(data, value) == binascii.crc32(data, value), (n, value)


def test_crc32_chains_and_takes_buffers(rng):
    a, b = rng.randbytes(3000), rng.randbytes(70000)
    assert mbhash.crc32(b, mbhash.crc32(a)) == zlib.crc32(a + b)
    for buf in (bytearray(b"123456789"), memoryview(b"123456789"), b"123456789"):
        assert mbhash.crc32(buf) == 0xCBF43926
    # The exporter's shape rules, as zlib: a 2-d contiguous view is fine.
    view = memoryview(bytes(range(12))).cast("B", (3, 4))
    assert mbhash.crc32(view) == zlib.crc32(view)


def test_crc32_refuses_what_zlib_refuses():
    for bad in ("text", None, 5, [1, 2]):
        with pytest.raises(TypeError):
            zlib.crc32(bad)
        with pytest.raises(TypeError):
            mbhash.crc32(bad)
    for bad in (1.5, "1", None, b"1"):
        with pytest.raises(TypeError):
            zlib.crc32(b"", bad)
        with pytest.raises(TypeError):
            mbhash.crc32(b"", bad)
    # Positional only, as zlib.crc32.
    with pytest.raises(TypeError):
        mbhash.crc32(data=b"")


def test_crc64_nvme(rng):
    spec = SPECS[4]
    assert mbhash.crc64_nvme(b"123456789") == 0xAE8B14860A799888
    for n in LENGTHS:
        data = rng.randbytes(n)
        assert mbhash.crc64_nvme(data) == rocksoft(*spec[1:6], data), n
        a = rng.randbytes(rng.randrange(500))
        assert mbhash.crc64_nvme(data, mbhash.crc64_nvme(a)) == mbhash.crc64_nvme(a + data)
    # Masked to 64 bits.
    assert mbhash.crc64_nvme(b"x", -1) == mbhash.crc64_nvme(b"x", ONES64)
    assert mbhash.crc64_nvme(b"x", 1 << 64) == mbhash.crc64_nvme(b"x")


@pytest.mark.parametrize("spec", SPECS, ids=[s[0] for s in SPECS])
def test_crc_object_against_reference(spec, rng):
    name, width, poly, init, refl, xorout, check = spec
    c = mbhash.crc(name)
    assert (c.name, c.width, c.digest_size) == (name, width, width // 8)
    c.update(b"123456789")
    assert c.value == check == rocksoft(width, poly, init, refl, xorout, b"123456789")
    assert c.digest() == check.to_bytes(width // 8, "big")
    assert c.hexdigest() == f"{check:0{width // 4}x}"
    for n in LENGTHS:
        data = rng.randbytes(n)
        want = rocksoft(width, poly, init, refl, xorout, data)
        assert mbhash.crc(name, data).value == want, n
        # In pieces, and a copy going its own way.
        c = mbhash.crc(name)
        cut = rng.randrange(n + 1)
        c.update(data[:cut])
        d = c.copy()
        c.update(data[cut:])
        assert c.value == want
        d.update(b"extra")
        assert d.value == rocksoft(width, poly, init, refl, xorout, data[:cut] + b"extra")
        assert c.value == want


def test_crc_names():
    assert mbhash.crc("CRC-64/NVME").name == "crc64-nvme"
    assert mbhash.crc("crc64-nvme").catalogue_name == "CRC-64/NVME"
    assert mbhash.crc("crc32b").name == "crc32"
    with pytest.raises(ValueError, match="crc64-nvme"):
        mbhash.crc("crc-nonesuch")
    with pytest.raises(TypeError):
        mbhash.crc("crc32").update("text")
    with pytest.raises(TypeError):
        mbhash.Crc.value = 1


def _gil_released(call):
    """True if another Python thread runs in the middle of `call` (on a
    large buffer): the GIL is released. Holding the GIL, `call` would leave
    a gap in the other thread's ticks of about its whole duration; released,
    the largest gap is scheduling noise, so a few tries are allowed on a
    loaded machine, and none can succeed with the GIL held."""
    for _ in range(10):
        ticks = []
        stop = threading.Event()

        def tick():
            while not stop.is_set():
                ticks.append(time.perf_counter())

        t = threading.Thread(target=tick)
        t.start()
        while not ticks:
            pass
        start = time.perf_counter()
        call()
        end = time.perf_counter()
        stop.set()
        t.join()
        points = [start] + [x for x in ticks if start < x < end] + [end]
        gap = max(b - a for a, b in zip(points, points[1:]))
        if gap < (end - start) / 2:
            return True
    return False


def test_gil_released_on_large_buffers():
    big = bytes(256 << 20)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        assert _gil_released(lambda: mbhash.crc32(big))
        assert _gil_released(lambda: mbhash.crc64_nvme(big))
        c = mbhash.crc("crc16-t10dif")
        assert _gil_released(lambda: c.update(big))
        assert _gil_released(lambda: mbhash.crc("crc64-xz", big))
    finally:
        sys.setswitchinterval(old)


def test_crc_engines_listed_and_set(rng):
    info = next(f for f in mbhash.engines() if f["family"] == "crc")
    assert info["env_var"] == "MBHASH_CRC_ENGINE"
    assert "crc64-nvme" in info["algorithms"] and "crc32c" not in info["algorithms"]
    names = [e["name"] for e in info["engines"]]
    assert names[0] == "auto" and "table" in names
    data = rng.randbytes(5000)
    want = zlib.crc32(data)
    try:
        for e in info["engines"]:
            if not e["supported"]:
                with pytest.raises(ValueError):
                    mbhash.set_engine("crc", e["name"])
                continue
            mbhash.set_engine("crc", e["name"])
            assert mbhash.get_engine("crc") == e["name"]
            assert mbhash.crc32(data) == want, e["name"]
            assert mbhash.crc("crc64-nvme", b"123456789").value == 0xAE8B14860A799888
        with pytest.raises(ValueError):
            mbhash.set_engine("crc", "bogus")
    finally:
        mbhash.set_engine("crc", None)
    if not os.environ.get("MBHASH_CRC_ENGINE"):
        assert mbhash.get_engine("crc") == "auto"
