import pytest

from rle import rle_decode, rle_encode


def test_encode():
    assert rle_encode("aaab") == "3a1b"


def test_decode():
    assert rle_decode("3a1b") == "aaab"


def test_missing_count():
    with pytest.raises(ValueError):
        rle_decode("ab")
