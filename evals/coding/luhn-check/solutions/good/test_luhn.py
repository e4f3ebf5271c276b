from luhn import is_valid_luhn


def test_valid_number_with_spaces():
    assert is_valid_luhn("4539 3195 0343 6467")


def test_wrong_check_digit():
    assert not is_valid_luhn("4539 3195 0343 6468")


def test_letters_are_invalid():
    assert not is_valid_luhn("4539 x195")
