# eval-hidden: semver-compare
import pytest

from semver import compare_versions


def test_hidden_numeric_not_lexical():
    assert compare_versions("1.10.0", "1.9.0") == 1
    assert compare_versions("2.0.0", "10.0.0") == -1


def test_hidden_equal():
    assert compare_versions("1.2.3", "1.2.3") == 0


def test_hidden_prerelease_below_release():
    assert compare_versions("1.0.0-alpha", "1.0.0") == -1
    assert compare_versions("1.0.0", "1.0.0-rc.1") == 1


def test_hidden_spec_precedence_chain():
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    for lo, hi in zip(chain, chain[1:]):
        assert compare_versions(lo, hi) == -1, (lo, hi)
        assert compare_versions(hi, lo) == 1, (hi, lo)


def test_hidden_build_metadata_ignored():
    assert compare_versions("1.0.0+build.5", "1.0.0+other") == 0
    assert compare_versions("1.0.0-rc.1+x", "1.0.0-rc.1") == 0


def test_hidden_invalid():
    for bad in ("1.0", "1.0.0.0", "a.b.c", ""):
        with pytest.raises(ValueError):
            compare_versions(bad, "1.0.0")
