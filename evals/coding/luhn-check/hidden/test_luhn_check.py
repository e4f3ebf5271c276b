# eval-hidden: luhn-check
from luhn import is_valid_luhn


def test_hidden_known_valid_numbers():
    assert is_valid_luhn("4539 3195 0343 6467")
    assert is_valid_luhn("79927398713")
    assert is_valid_luhn("059")


def test_hidden_known_invalid_numbers():
    assert not is_valid_luhn("8273 1232 7352 0569")
    assert not is_valid_luhn("79927398710")


def test_hidden_single_digit_is_invalid():
    assert not is_valid_luhn("0")
    assert not is_valid_luhn(" 0 ")


def test_hidden_empty_is_invalid():
    assert not is_valid_luhn("")
    assert not is_valid_luhn("   ")


def test_hidden_non_digits_are_invalid():
    assert not is_valid_luhn("055a 444 285")
    assert not is_valid_luhn("059-")


def test_hidden_double_zero_is_valid():
    assert is_valid_luhn("00")
