# eval-hidden: run-length-encoding
import pytest

from rle import rle_decode, rle_encode


def test_hidden_empty():
    assert rle_encode("") == ""
    assert rle_decode("") == ""


def test_hidden_runs_of_one():
    assert rle_encode("abc") == "1a1b1c"


def test_hidden_long_runs_encode():
    assert rle_encode("x" * 12 + "y") == "12x1y"


def test_hidden_long_runs_decode():
    assert rle_decode("12x1y") == "x" * 12 + "y"
    assert rle_decode("100z") == "z" * 100


def test_hidden_round_trip():
    for s in ["aaabccddddd", "  a  ", "wwwwwwwwwwwwwwwwwwwwwwwwwwwwwww!", "Aa"]:
        assert rle_decode(rle_encode(s)) == s


def test_hidden_malformed():
    with pytest.raises(ValueError):
        rle_decode("a")
    with pytest.raises(ValueError):
        rle_decode("3a4")
