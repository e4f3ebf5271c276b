from semver import compare_versions


def test_minor_numeric():
    assert compare_versions("1.10.0", "1.9.0") == 1


def test_prerelease_lower():
    assert compare_versions("1.0.0-alpha", "1.0.0") == -1


def test_build_ignored():
    assert compare_versions("1.0.0+abc", "1.0.0") == 0
