import pytest

from baseconv import from_base, to_base


def test_hex():
    assert to_base(255, 16) == "ff"
    assert from_base("ff", 16) == 255


def test_negative_binary():
    assert to_base(-5, 2) == "-101"


def test_bad_base():
    with pytest.raises(ValueError):
        to_base(3, 40)
