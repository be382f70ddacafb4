"""The installed type stubs (mbhash/__init__.pyi and py.typed): mypy
--strict accepts a typed use of every API and the examples, and rejects
misuse, so the stubs are really read."""

import importlib.util
import os
import pathlib
import subprocess
import sys

import mbhash
from conftest import import_or_skip

HERE = pathlib.Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"


def mypy(tmp_path, *files):
    import_or_skip("mypy")
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
         # distributed has a py.typed marker but untyped functions.
         "--untyped-calls-exclude=distributed", *map(str, files)],
        capture_output=True, text=True, cwd=tmp_path)
    return r.returncode, r.stdout + r.stderr


def test_stubs_are_installed():
    package = pathlib.Path(mbhash.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "__init__.pyi").is_file()


def test_typed_usage_passes_mypy_strict_and_runs(tmp_path):
    rc, out = mypy(tmp_path, HERE / "typed_usage.py")
    assert rc == 0, out
    spec = importlib.util.spec_from_file_location("typed_usage", HERE / "typed_usage.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main()


def test_examples_pass_mypy_strict(tmp_path):
    import_or_skip("distributed")
    rc, out = mypy(tmp_path, *sorted(EXAMPLES.glob("*.py")))
    assert rc == 0, out


def test_misuse_is_rejected(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import mbhash\n"
        "mbhash.sha256('text')\n"            # str is not a buffer
        "mbhash.sha256(b'', True)\n"         # usedforsecurity is keyword-only
        "x: str = mbhash.sha256().digest()\n"  # bytes, not str
        "mbhash.crc32c(b'', 1.5)\n"          # an int start value
        "mbhash.nope()\n")
    rc, out = mypy(tmp_path, bad)
    assert rc == 1, out
    for line in (2, 3, 4, 5, 6):
        assert f"bad.py:{line}: error" in out, out
    assert os.path.exists(tmp_path / "cache")


def test_stubs_name_every_public_name():
    # The stubs and the module cannot drift apart: the same public names.
    import ast
    stub = pathlib.Path(mbhash.__file__).parent / "__init__.pyi"
    tree = ast.parse(stub.read_text())
    named = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            named.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            named.add(node.target.id)
    public = {n for n in named if not n.startswith("_")} | {"__version__"}
    runtime = {n for n in dir(mbhash) if not n.startswith("_")} | {"__version__"}
    # The package's submodule (the extension) is no API.
    runtime.discard("mbhash")
    assert public == runtime
