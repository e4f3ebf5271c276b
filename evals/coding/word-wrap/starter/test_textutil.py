from textutil import normalize_spaces


def test_normalize_spaces():
    assert normalize_spaces("  a \t b\n c ") == "a b c"
