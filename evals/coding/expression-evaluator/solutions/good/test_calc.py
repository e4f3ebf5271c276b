import pytest

from calc import evaluate


def test_precedence():
    assert evaluate("1 + 2 * 3") == 7


def test_parentheses_and_unary():
    assert evaluate("-(1 + 1) * 3") == -6


def test_divide_by_zero():
    with pytest.raises(ZeroDivisionError):
        evaluate("1 / 0")
