# eval-hidden: word-wrap
import pytest

from textutil import normalize_spaces, wrap


def test_hidden_greedy():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_hidden_exact_fit():
    assert wrap("aaaa bbbb", 9) == ["aaaa bbbb"]
    assert wrap("aaaa bbbb", 8) == ["aaaa", "bbbb"]


def test_hidden_whitespace_collapsed():
    assert wrap("  a\n\tb   c ", 80) == ["a b c"]


def test_hidden_empty():
    assert wrap("", 5) == []
    assert wrap("   \n", 5) == []


def test_hidden_long_word_split():
    assert wrap("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert wrap("xy abcdefgh z", 3) == ["xy", "abc", "def", "gh", "z"]


def test_hidden_no_line_too_long():
    text = "lorem ipsum dolor sit amet consectetur adipiscingelitseddoeiusmod tempor"
    for width in range(1, 20):
        assert all(len(line) <= width for line in wrap(text, width))
        assert "".join(wrap(text, width)).replace(" ", "") == text.replace(" ", "")


def test_hidden_bad_width():
    with pytest.raises(ValueError):
        wrap("a", 0)


def test_hidden_normalize_spaces_kept():
    assert normalize_spaces(" x  y ") == "x y"
