from brackets import is_balanced


def test_nested():
    assert is_balanced("a(b[c]{d})")


def test_wrong_kind():
    assert not is_balanced("(]")


def test_extra_closing():
    assert not is_balanced("())")
