"""Shared helpers of the mbhash Python tests.

The tests run against the *installed* module (`pip install` of the wheel
that `maturin build` made), never a source tree: the build is what ships.
"""

import hashlib
import os
import pathlib
import random
import sys

import pytest

import mbhash

# hashlib names of every algorithm mbhash computes.
ALGOS = sorted(mbhash.algorithms_available)


def skip_or_require(what, why):
    """Skips the current test for lack of `what` (a tool or package),
    printing a SKIPPED line past pytest's capture so that every log shows
    it; fails instead if MBHASH_REQUIRE names `what` (or "all")."""
    required = {r.strip() for r in os.environ.get("MBHASH_REQUIRE", "").split(",")}
    if what in required or "all" in required:
        pytest.fail(f"{what} is required by MBHASH_REQUIRE but {why}")
    print(f"SKIPPED {what}: {why}", file=sys.__stderr__, flush=True)
    pytest.skip(f"{what}: {why}")


def import_or_skip(module):
    try:
        return __import__(module)
    except ImportError as e:
        skip_or_require(module, f"it cannot be imported ({e})")


def repo_root():
    """The repository root: the nearest directory above this file whose
    Cargo.toml declares the workspace (the tests live in the source tree
    even though the module under test is the installed one)."""
    here = pathlib.Path(__file__).resolve()
    for d in here.parents:
        toml = d / "Cargo.toml"
        if toml.is_file() and "[workspace]" in toml.read_text():
            return d
    raise RuntimeError(f"no workspace Cargo.toml above {here}")


def vector_files():
    """Every NIST SHA .rsp file of the repository, wherever it is kept
    (MBHASH_VECTORS names the directory to use instead)."""
    if os.environ.get("MBHASH_VECTORS"):
        roots = [pathlib.Path(os.environ["MBHASH_VECTORS"])]
    else:
        roots = [repo_root()]
    found = []
    for root in roots:
        for p in root.rglob("SHA*Msg.rsp"):
            if "target" not in p.relative_to(root).parts[:1]:
                found.append(p)
    return sorted(found)


def engines_of(family):
    """Every engine of a family this CPU runs (a SKIPPED line for others)."""
    info = next(f for f in mbhash.engines() if f["family"] == family)
    names = []
    for e in info["engines"]:
        if e["supported"]:
            names.append(e["name"])
        else:
            print(f"SKIPPED {family} engine {e['name']}: unsupported on this CPU",
                  file=sys.__stderr__, flush=True)
    return names


def family_of(algo):
    """The engine family that computes `algo`, as mbhash.engines() lists it."""
    return next(f["family"] for f in mbhash.engines() if algo in f["algorithms"])


@pytest.fixture(autouse=True)
def _hashlib_has_the_algorithm(request):
    """hashlib (OpenSSL) is the reference of the tests parametrized by
    `algo`: one of an algorithm that this Python's hashlib lacks (SM3 needs
    an OpenSSL built with it) is skipped with a SKIPPED line, or fails when
    MBHASH_REQUIRE names "hashlib-<algo>"."""
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    algo = params.get("algo")
    if isinstance(algo, str) and algo in mbhash.algorithms_available \
            and algo not in hashlib.algorithms_available:
        skip_or_require(f"hashlib-{algo}", "this Python's hashlib does not have it")


def reference(algo, data):
    return hashlib.new(algo, bytes(data)).digest()


@pytest.fixture
def rng():
    return random.Random(0x6D62)
