import pytest

from textutil import normalize_spaces, wrap


def test_normalize_spaces():
    assert normalize_spaces("  a \t b\n c ") == "a b c"


def test_wrap_greedy():
    assert wrap("one two three four", 9) == ["one two", "three", "four"]


def test_wrap_bad_width():
    with pytest.raises(ValueError):
        wrap("x", 0)
