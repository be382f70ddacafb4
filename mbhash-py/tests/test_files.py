"""hash_files: many files at once, per-file results and errors."""

import errno
import os
import pathlib

import pytest

import mbhash
from conftest import ALGOS, engines_of, family_of, reference

CHUNK = 256 << 10  # the reader's chunk: sizes around it cross rounds


def make(tmp_path, rng, sizes):
    paths, datas = [], []
    for i, n in enumerate(sizes):
        p = tmp_path / f"file{i:04}"
        d = rng.randbytes(n)
        p.write_bytes(d)
        paths.append(p)
        datas.append(d)
    return paths, datas


@pytest.mark.parametrize("algo", ALGOS)
def test_sizes_across_chunks(algo, tmp_path, rng):
    sizes = [0, 1, 63, 64, 4095, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7]
    paths, datas = make(tmp_path, rng, sizes)
    got = mbhash.hash_files(paths, algo)
    assert got == [reference(algo, d) for d in datas]


@pytest.mark.parametrize("jobs", [1, 2, 3, 16])
def test_many_files_in_order(jobs, tmp_path, rng):
    sizes = [rng.choice([rng.randrange(200), rng.randrange(70000)]) for _ in range(300)]
    paths, datas = make(tmp_path, rng, sizes)
    assert mbhash.hash_files(paths, jobs=jobs) == [reference("sha256", d) for d in datas]


def test_every_engine(tmp_path, rng):
    paths, datas = make(tmp_path, rng, [rng.randrange(100000) for _ in range(40)])
    for algo in ("sha256", "sha512"):
        for engine in engines_of(family_of(algo)):
            assert mbhash.hash_files(paths, algo, engine=engine) == [reference(algo, d) for d in datas], engine


def test_path_kinds(tmp_path):
    p = tmp_path / "a file"
    p.write_bytes(b"abc")
    want = reference("sha256", b"abc")
    assert mbhash.hash_files([p, str(p), os.fsencode(p)]) == [want] * 3
    # A name that is not UTF-8 (bytes path), found again through its bytes.
    raw = os.fsencode(tmp_path) + b"/caf\xe9"
    with open(raw, "wb") as f:
        f.write(b"xyz")
    assert mbhash.hash_files([raw]) == [reference("sha256", b"xyz")]
    assert mbhash.hash_files([os.fsdecode(raw)]) == [reference("sha256", b"xyz")]
    with pytest.raises(TypeError):
        mbhash.hash_files([p, 3])


def test_errors_are_per_file(tmp_path, rng):
    paths, datas = make(tmp_path, rng, [10, 20000, 30])
    missing = tmp_path / "missing"
    directory = tmp_path / "dir"
    directory.mkdir()
    items = [paths[0], missing, paths[1], str(directory), paths[2]]
    got = mbhash.hash_files(items, jobs=2)
    assert got[0] == reference("sha256", datas[0])
    assert got[2] == reference("sha256", datas[1])
    assert got[4] == reference("sha256", datas[2])
    e = got[1]
    assert isinstance(e, FileNotFoundError) and e.errno == errno.ENOENT
    assert e.filename == str(missing)
    assert "No such file" in str(e) and str(missing) in str(e)
    e = got[3]
    assert isinstance(e, IsADirectoryError) and e.errno == errno.EISDIR
    assert e.filename == str(directory)


def test_empty_list():
    assert mbhash.hash_files([]) == []
