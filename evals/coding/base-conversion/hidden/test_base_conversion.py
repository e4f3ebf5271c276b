# eval-hidden: base-conversion
import pytest

from baseconv import from_base, to_base


def test_hidden_zero():
    assert to_base(0, 2) == "0"
    assert to_base(0, 36) == "0"
    assert from_base("0", 7) == 0


def test_hidden_known_values():
    assert to_base(255, 16) == "ff"
    assert to_base(35, 36) == "z"
    assert to_base(5, 2) == "101"


def test_hidden_negative():
    assert to_base(-10, 3) == "-101"
    assert from_base("-ff", 16) == -255


def test_hidden_uppercase_accepted():
    assert from_base("FF", 16) == 255


def test_hidden_round_trip():
    for base in (2, 8, 11, 36):
        for n in (-1000, -1, 1, 7, 123456789):
            assert from_base(to_base(n, base), base) == n


def test_hidden_bad_base():
    with pytest.raises(ValueError):
        to_base(10, 1)
    with pytest.raises(ValueError):
        from_base("10", 37)


def test_hidden_bad_digit():
    with pytest.raises(ValueError):
        from_base("12", 2)
