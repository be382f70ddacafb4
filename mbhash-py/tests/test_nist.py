"""The NIST CAVP vectors (SHA*ShortMsg.rsp, SHA*LongMsg.rsp): through hash
objects and through hash_many (all messages of a file at once); SHA-1's
Monte Carlo test (SHA1Monte.rsp) through hash objects."""

import re

import pytest

import mbhash
from conftest import vector_files

# File stem prefix -> hashlib name.
ALGO_OF = {
    "SHA1": "sha1", "SHA224": "sha224", "SHA256": "sha256", "SHA384": "sha384", "SHA512": "sha512",
    "SHA512_224": "sha512_224", "SHA512_256": "sha512_256",
}


def parse(path):
    """(message, digest) pairs; Len is in bits, Msg "00" for the empty one."""
    vectors, length, msg = [], None, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("Len ="):
            length = int(line.split("=")[1])
        elif line.startswith("Msg ="):
            msg = bytes.fromhex(line.split("=")[1].strip())[: length // 8]
        elif line.startswith("MD ="):
            vectors.append((msg, bytes.fromhex(line.split("=")[1].strip())))
    return vectors


FILES = vector_files()


def test_vectors_found():
    names = {p.name for p in FILES}
    for stem in ALGO_OF:
        assert f"{stem}ShortMsg.rsp" in names and f"{stem}LongMsg.rsp" in names, stem


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file(path):
    algo = ALGO_OF[re.match(r"(SHA\d+(?:_\d+)?)(?:Short|Long)Msg", path.name).group(1)]
    vectors = parse(path)
    assert len(vectors) >= 64
    for msg, md in vectors:
        assert mbhash.new(algo, msg).digest() == md, (path.name, len(msg))
    got = mbhash.hash_many(algo, [m for m, _ in vectors])
    assert got == [md for _, md in vectors]


def test_sha1_monte_carlo():
    # SHAVS 6.4: MD0 = MD1 = MD2 = Seed; MDi = SHA1(MD(i-3) || MD(i-2) ||
    # MD(i-1)) for i = 3..1002; MD1002 is checkpoint j and the next seed.
    (path,) = [p.with_name("SHA1Monte.rsp") for p in FILES if p.name == "SHA1ShortMsg.rsp"]
    text = path.read_text()
    seed = bytes.fromhex(re.search(r"Seed = (\w+)", text).group(1))
    checkpoints = [bytes.fromhex(m) for m in re.findall(r"MD = (\w+)", text)]
    assert len(checkpoints) == 100
    for j, want in enumerate(checkpoints):
        md = [seed, seed, seed]
        for _ in range(3, 1003):
            md = [md[1], md[2], mbhash.sha1(md[0] + md[1] + md[2]).digest()]
        assert md[2] == want, j
        seed = md[2]
