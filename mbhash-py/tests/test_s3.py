"""mbhash.s3_etag against an ETag computed here with hashlib, as S3 computes
it for a file the AWS CLI uploaded (multipart from the threshold on, the
part size doubled until at most 10,000 parts, at least 5 MiB)."""

import hashlib
import os

import pytest

import mbhash

MIB = 1 << 20


def reference(data: bytes, part_size: int, threshold: int) -> str:
    if len(data) < threshold or not data:
        return hashlib.md5(data).hexdigest()
    size = part_size
    while -(-len(data) // size) > 10_000:
        size *= 2
    size = min(max(size, 5 * MIB), 5 << 30)
    parts = [data[i : i + size] for i in range(0, len(data), size)]
    joined = b"".join(hashlib.md5(p).digest() for p in parts)
    return f"{hashlib.md5(joined).hexdigest()}-{len(parts)}"


@pytest.mark.parametrize(
    ("size", "part_size", "threshold"),
    [
        (0, 8 * MIB, 8 * MIB),
        (1, 8 * MIB, 8 * MIB),
        (8 * MIB - 1, 8 * MIB, 8 * MIB),  # below the threshold: one MD5
        (8 * MIB, 8 * MIB, 8 * MIB),  # at it: one part, "-1"
        (8 * MIB + 1, 8 * MIB, 8 * MIB),  # a last part of one byte
        (16 * MIB, 8 * MIB, 8 * MIB),  # two parts
        (11 * MIB, 5 * MIB, 5 * MIB),  # three parts, the last short
        (3 * MIB, 1 * MIB, 1 * MIB),  # the part size held to 5 MiB
        (6 * MIB, 8 * MIB, 64 * MIB),  # a high threshold
    ],
)
def test_etag_matches_hashlib(tmp_path, size, part_size, threshold):
    data = os.urandom(size)
    path = tmp_path / "f"
    path.write_bytes(data)
    want = reference(data, part_size, threshold)
    assert mbhash.s3_etag(path, part_size=part_size, threshold=threshold) == want
    assert mbhash.s3_etag(str(path), part_size, threshold) == want


def test_defaults_are_the_aws_cli_s(tmp_path):
    data = os.urandom(9 * MIB)
    path = tmp_path / "f"
    path.write_bytes(data)
    assert mbhash.s3_etag(path) == reference(data, 8 * MIB, 8 * MIB)
    assert mbhash.s3_etag(path).endswith("-2")


def test_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        mbhash.s3_etag(tmp_path / "missing")
    (tmp_path / "f").write_bytes(b"x")
    with pytest.raises(ValueError):
        mbhash.s3_etag(tmp_path / "f", part_size=0)
    with pytest.raises(TypeError):
        mbhash.s3_etag(42)
