"""The Dask example (examples/dask_verify.py): a manifest verified on a
LocalCluster of 2 worker processes on the loopback interface."""

import hashlib
import importlib.util
import os
import random
import sys

import pytest

from conftest import import_or_skip, skip_or_require

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "dask_verify.py")


def load_example():
    spec = importlib.util.spec_from_file_location("dask_verify", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    # As an import would: dataclasses look their module up.
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def escape(name):
    """coreutils' escaping of a checksum line's name; (prefix, name)."""
    if any(c in name for c in b"\\\n\r"):
        return b"\\", name.replace(b"\\", b"\\\\").replace(b"\n", b"\\n").replace(b"\r", b"\\r")
    return b"", name


def write_tree(root, rng):
    """Files and a manifest written with hashlib, in both line formats."""
    names = [f"f{i:03}".encode() for i in range(150)]
    names += [b"with space", b"back\\slash", b"new\nline", b"caf\xe9", b"sub/inner"]
    os.makedirs(os.path.join(os.fsencode(root), b"sub"))
    lines = []
    for i, name in enumerate(names):
        data = rng.randbytes(rng.choice([rng.randrange(100), rng.randrange(100000)]))
        with open(os.path.join(os.fsencode(root), name), "wb") as f:
            f.write(data)
        prefix, esc = escape(name)
        if i % 10 == 3:
            lines.append(prefix + b"SHA512 (" + esc + b") = " + hashlib.sha512(data).hexdigest().encode())
        else:
            mode = b"*" if i % 2 else b" "
            lines.append(prefix + hashlib.sha256(data).hexdigest().encode() + b" " + mode + esc)
    lines.insert(7, b"this is not a checksum line")
    return names, b"\n".join(lines) + b"\n"


def test_parse_manifest(tmp_path):
    ex = load_example()
    names, manifest = write_tree(str(tmp_path), random.Random(1))
    entries, bad = ex.parse_manifest(manifest)
    assert [e.name for e in entries] == names
    assert bad == [8]
    assert {e.algo for e in entries} == {"sha256", "sha512"}


@pytest.fixture(scope="module")
def cluster():
    """2 worker processes and a scheduler, on the loopback interface."""
    import_or_skip("dask")
    distributed = import_or_skip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as c:
        yield c


def test_local_cluster(tmp_path, cluster):
    import distributed
    ex = load_example()
    root = str(tmp_path)
    names, manifest = write_tree(root, random.Random(2))
    broot = os.fsencode(root)
    # Damage: two changed files (one of them SHA-512), one missing, one
    # unreadable (a directory now).
    for victim in (b"f010", b"f013"):
        with open(os.path.join(broot, victim), "ab") as f:
            f.write(b"!")
    os.remove(os.path.join(broot, b"new\nline"))
    os.remove(os.path.join(broot, b"f100"))
    os.mkdir(os.path.join(broot, b"f100"))

    entries, bad = ex.parse_manifest(manifest)
    with distributed.Client(cluster) as client:
        report = ex.verify_manifest(client, entries, root, chunk=20)
        workers = set(cluster.scheduler_info["workers"])
    assert sorted(report.mismatches) == [b"f010", b"f013"]
    assert sorted((n, e) for n, e, _ in report.unreadable) == [
        (b"f100", 21), (b"new\nline", 2)]  # EISDIR, ENOENT
    assert report.ok == len(names) - 4
    # The chunks ran in the cluster's worker processes.
    assert report.workers and report.workers <= workers


def test_command_line(tmp_path, capsys, cluster):
    # As the README runs it against a real cluster: by scheduler address.
    ex = load_example()
    names, manifest = write_tree(str(tmp_path), random.Random(3))
    sums = tmp_path / "SUMS"
    sums.write_bytes(manifest)
    args = [str(sums), "--chunk", "50", "--scheduler", cluster.scheduler_address]
    assert ex.main(args) == 1  # the misformatted line
    err = capsys.readouterr().err
    assert f"{len(names)} OK, 0 mismatched, 0 unreadable, 1 misformatted" in err


NAMES = [b"plain", b"back\\slash", b"new\nline", b"b\\a\nc", b"cr\rx", b"caf\xe9"]


def sha256sum_check(tmp_path, names):
    """sha256sum -c's stdout lines for `names`, after every file changed, and
    its exit status; skipped without sha256sum."""
    import shutil
    import subprocess
    if shutil.which("sha256sum") is None:
        skip_or_require("sha256sum", "it is not installed")
    root = os.fsencode(str(tmp_path))
    for name in names:
        with open(os.path.join(root, name), "wb") as f:
            f.write(name)
    sums = subprocess.run(["sha256sum", "--", *names], cwd=root, check=True,
                          capture_output=True).stdout
    for name in names:
        with open(os.path.join(root, name), "ab") as f:
            f.write(b"!")
    r = subprocess.run(["sha256sum", "-c", "-"], cwd=root, input=sums, capture_output=True)
    return sums, lines_of(r.stdout), r.returncode


def lines_of(out):
    """Lines ending in \n (a name may hold a carriage return)."""
    return [line + b"\n" for line in out.split(b"\n")[:-1]]


def test_escape_name_as_sha256sum_check(tmp_path):
    ex = load_example()
    _, lines, rc = sha256sum_check(tmp_path, NAMES)
    assert rc == 1
    assert lines == [ex.escape_name(n) + b": FAILED\n" for n in NAMES]
    assert ex.escape_name(b"new\nline") == b"\\new\\nline"
    assert ex.escape_name(b"d02/new\nline.bin") == b"\\d02/new\\nline.bin"


def test_command_line_prints_names_as_sha256sum(tmp_path, capsysbinary, cluster):
    ex = load_example()
    sums, want, _ = sha256sum_check(tmp_path, NAMES)
    os.remove(os.path.join(os.fsencode(str(tmp_path)), b"new\nline"))
    manifest = tmp_path / "SUMS"
    manifest.write_bytes(sums)
    args = [str(manifest), "--scheduler", cluster.scheduler_address]
    assert ex.main(args) == 1
    out = lines_of(capsysbinary.readouterr().out)
    want = [b"\\new\\nline: FAILED open or read\n" if line.startswith(b"\\new") else line
            for line in want]
    assert sorted(out) == sorted(want)


@pytest.mark.parametrize("content", [b"", b"not a checksum line\n", b"\n\n"])
def test_no_checksum_lines_fails_as_sha256sum(tmp_path, capsys, content):
    import shutil
    import subprocess
    ex = load_example()
    manifest = tmp_path / "SUMS"
    manifest.write_bytes(content)
    # No cluster is needed: there is nothing to check.
    assert ex.main([str(manifest), "--scheduler", "tcp://127.0.0.1:1"]) == 1
    assert "no properly formatted checksum lines found" in capsys.readouterr().err
    if shutil.which("sha256sum"):
        r = subprocess.run(["sha256sum", "-c", str(manifest)], capture_output=True)
        assert r.returncode == 1
        assert b"no properly formatted checksum lines found" in r.stderr
