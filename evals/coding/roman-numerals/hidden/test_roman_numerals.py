# eval-hidden: roman-numerals
import pytest

from roman import from_roman, to_roman


def test_hidden_small_numbers():
    assert [to_roman(n) for n in range(1, 11)] == ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]


def test_hidden_subtractive_forms():
    assert to_roman(40) == "XL"
    assert to_roman(90) == "XC"
    assert to_roman(400) == "CD"
    assert to_roman(944) == "CMXLIV"


def test_hidden_limits():
    assert to_roman(3999) == "MMMCMXCIX"
    assert from_roman("MMMCMXCIX") == 3999


def test_hidden_out_of_range():
    for n in (0, -1, 4000):
        with pytest.raises(ValueError):
            to_roman(n)


def test_hidden_round_trip():
    for n in range(1, 4000):
        assert from_roman(to_roman(n)) == n


def test_hidden_bad_numeral():
    with pytest.raises(ValueError):
        from_roman("")
    with pytest.raises(ValueError):
        from_roman("XIZ")
