"""engines(), set_engine() and get_engine(), as `mbhash engines` lists them."""

import pytest

import mbhash

HASH_FAMILIES = ("md5", "sha1", "sm3", "sha256", "sha512")


def test_engines_listing():
    fams = {f["family"]: f for f in mbhash.engines()}
    assert set(fams) == {"md5", "sha1", "sm3", "sha256", "sha512", "crc32c", "crc"}
    for fam in HASH_FAMILIES:
        assert fams[fam]["env_var"] == f"MBHASH_{fam.upper()}_ENGINE"
    assert set(fams["sha512"]["algorithms"]) == {"sha512", "sha384", "sha512_256", "sha512_224"}
    assert fams["md5"]["algorithms"] == ["md5"]
    assert fams["sha1"]["algorithms"] == ["sha1"]
    assert fams["sm3"]["algorithms"] == ["sm3"]
    # The engines of the new families, as the core names them.
    names = {fam: {e["name"] for e in fams[fam]["engines"]} for fam in fams}
    assert {"auto", "scalar", "avx2", "avx512"} <= names["md5"]
    assert {"auto", "scalar", "avx2", "avx512", "shani", "shani-x2", "shani-x4"} <= names["sha1"]
    assert {"auto", "scalar", "avx2", "avx512"} <= names["sm3"]
    for f in fams.values():
        names = [e["name"] for e in f["engines"]]
        assert names[0] == "auto" and f["engines"][0]["supported"]
        assert len(names) == len(set(names)), names  # each engine once
        assert f["error"] is None and f["in_use"] is not None
    for fam in HASH_FAMILIES:
        f = fams[fam]
        assert "scalar" in f["cost_ns"]
        assert len(f["auto_runs"]) == f["lanes"]
        assert set(f["auto_runs"]) <= set(f["cost_ns"])


def test_an_engine_error_lists_each_engine_once():
    for fam in HASH_FAMILIES + ("crc32c",):
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
        # The new families, each its own default.
        for fam in ("md5", "sha1", "sm3"):
            mbhash.set_engine(fam, "scalar")
            assert mbhash.get_engine(fam) == "scalar"
            assert getattr(mbhash, fam)().engine == "scalar"
            assert mbhash.new(fam.upper()).engine == "scalar"
        assert mbhash.sha256(engine="auto").engine == "auto"
        assert mbhash.hash_many("md5", [b"abc"]) == [bytes.fromhex("900150983cd24fb0d6963f7d28e17f72")]
        mbhash.set_engine("sha1", None)
        assert mbhash.get_engine("sha1") == "auto"
        assert mbhash.get_engine("md5") == "scalar"
    finally:
        for fam in HASH_FAMILIES + ("crc32c",):
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


@pytest.mark.parametrize("fam", ["md5", "sha1", "sm3"])
def test_environment_variable_of_new_families(fam):
    # MBHASH_MD5_ENGINE, MBHASH_SHA1_ENGINE, MBHASH_SM3_ENGINE, each in a
    # fresh interpreter: the named engine, and an unusable name refused.
    import os
    import subprocess
    import sys
    var = f"MBHASH_{fam.upper()}_ENGINE"
    code = (f"import mbhash; h = mbhash.{fam}(b'abc')\n"
            f"print(mbhash.get_engine('{fam}'), h.engine, mbhash.sha256().engine != 'scalar'"
            f" or mbhash.get_engine('sha256') == 'scalar')")
    env = dict(os.environ, **{var: "scalar"})
    env.pop("MBHASH_SHA256_ENGINE", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["scalar", "scalar", "True"]
    env[var] = "bogus"
    code = (f"import mbhash\ntry:\n    mbhash.{fam}()\nexcept ValueError as e:\n"
            f"    print('ValueError', '{var}' in str(e) or 'bogus' in str(e))\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["ValueError", "True"]
