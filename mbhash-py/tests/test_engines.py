"""engines(), set_engine() and get_engine(), as `mbhash engines` lists them."""

import pytest

import mbhash


def test_engines_listing():
    fams = {f["family"]: f for f in mbhash.engines()}
    assert set(fams) == {"sha256", "sha512", "crc32c", "crc"}
    assert fams["sha256"]["env_var"] == "MBHASH_SHA256_ENGINE"
    assert set(fams["sha512"]["algorithms"]) == {"sha512", "sha384", "sha512_256", "sha512_224"}
    for f in fams.values():
        names = [e["name"] for e in f["engines"]]
        assert names[0] == "auto" and f["engines"][0]["supported"]
        assert len(names) == len(set(names)), names  # each engine once
        assert f["error"] is None and f["in_use"] is not None
    for fam in ("sha256", "sha512"):
        f = fams[fam]
        assert "scalar" in f["cost_ns"]
        assert len(f["auto_runs"]) == f["lanes"]
        assert set(f["auto_runs"]) <= set(f["cost_ns"])


def test_an_engine_error_lists_each_engine_once():
    for fam in ("sha256", "sha512", "crc32c"):
        with pytest.raises(ValueError) as err:
            mbhash.set_engine(fam, "bogus")
        listed = str(err.value).split("valid engines: ")[1].split(";")[0].split(", ")
        assert listed.count("auto") == 1, str(err.value)
        assert len(listed) == len(set(listed)), str(err.value)


def test_set_engine_and_back():
    try:
        mbhash.set_engine("sha256", "scalar")
        assert mbhash.get_engine("sha256") == "scalar"
        assert mbhash.get_engine("sha224") == "scalar"  # an algorithm names its family
        assert mbhash.sha224().engine == "scalar"
        assert mbhash.sha512().engine != "scalar" or mbhash.get_engine("sha512") == "scalar"
        # An argument wins over the override.
        assert mbhash.sha256(engine="auto").engine == "auto"
        assert mbhash.hash_many("sha256", [b"abc"]) == [mbhash.sha256(b"abc", engine="auto").digest()]
        mbhash.set_engine("sha512_256", "scalar")
        assert mbhash.get_engine("sha512") == "scalar"
        mbhash.set_engine("crc32c", "table")
        assert mbhash.get_engine("crc32c") == "table"
        assert mbhash.crc32c(b"123456789") == 0xE3069283
    finally:
        for fam in ("sha256", "sha512", "crc32c"):
            mbhash.set_engine(fam, None)
    assert mbhash.get_engine("sha256") == "auto"


def test_bad_override_is_refused_and_keeps_the_old():
    with pytest.raises(ValueError, match="valid engines"):
        mbhash.set_engine("sha256", "avx1024")
    assert mbhash.get_engine("sha256") == "auto"


def test_environment_variable(tmp_path):
    # The variable is read once per process: check in fresh interpreters.
    import subprocess
    import sys
    code = "import mbhash; print(mbhash.get_engine('sha256'), mbhash.sha256().engine)"
    env = dict(__import__("os").environ, MBHASH_SHA256_ENGINE="scalar")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["scalar", "scalar"]
    env["MBHASH_SHA256_ENGINE"] = "bogus"
    code = ("import mbhash\n"
            "try:\n    mbhash.sha256()\nexcept ValueError as e:\n    print('ValueError', e)\n"
            "f = [f for f in mbhash.engines() if f['family'] == 'sha256'][0]\n"
            "print(f['in_use'], 'MBHASH_SHA256_ENGINE' in f['error'])\n"
            "import hashlib\n"
            "print(mbhash.sha256(b'abc', engine='scalar').digest() == hashlib.sha256(b'abc').digest())\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ValueError") and "bogus" in lines[0]
    assert lines[1] == "None True"
    assert lines[2] == "True"
