"""CRC32C against a bitwise reference written here, with every engine."""

import pytest

import mbhash
from conftest import engines_of


def crc32c_reference(data, crc=0):
    """Bitwise CRC32C (reflected polynomial 0x82F63B78), finished values."""
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def test_check_value():
    # The check value of the CRC catalogue (CRC-32/ISCSI).
    assert crc32c_reference(b"123456789") == 0xE3069283
    assert mbhash.crc32c(b"123456789") == 0xE3069283


@pytest.mark.parametrize("engine", [None] + engines_of("crc32c"))
def test_random_against_reference(engine, rng):
    for n in [0, 1, 7, 8, 15, 16, 63, 64, 159, 160, 255, 799, 800, 1025, 4097, 6000]:
        data = rng.randbytes(n)
        assert mbhash.crc32c(data, engine=engine) == crc32c_reference(data), (engine, n)
        seed = rng.getrandbits(32)
        assert mbhash.crc32c(data, seed, engine=engine) == crc32c_reference(data, seed)


def test_continue_and_combine(rng):
    for _ in range(50):
        a, b = rng.randbytes(rng.randrange(3000)), rng.randbytes(rng.randrange(3000))
        whole = mbhash.crc32c(a + b)
        assert mbhash.crc32c(b, mbhash.crc32c(a)) == whole
        assert mbhash.crc32c_combine(mbhash.crc32c(a), mbhash.crc32c(b), len(b)) == whole
    # Long second parts, without their data.
    big = bytes(1 << 20)
    assert mbhash.crc32c_combine(mbhash.crc32c(b"x"), mbhash.crc32c(big), len(big)) == mbhash.crc32c(b"x" + big)


def test_buffer_types():
    data = bytearray(b"123456789")
    assert mbhash.crc32c(data) == mbhash.crc32c(memoryview(data)) == 0xE3069283
