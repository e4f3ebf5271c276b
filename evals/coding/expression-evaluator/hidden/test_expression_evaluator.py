# eval-hidden: expression-evaluator
import pytest

from calc import evaluate


def test_hidden_precedence():
    assert evaluate("2 + 3 * 4") == 14
    assert evaluate("(2 + 3) * 4") == 20


def test_hidden_left_associative():
    assert evaluate("8 - 3 - 2") == 3
    assert evaluate("16 / 4 / 2") == 2
    assert evaluate("2 - 3 + 4") == 3


def test_hidden_unary_minus():
    assert evaluate("-3 + 5") == 2
    assert evaluate("-(2 + 3) * 2") == -10
    assert evaluate("4 * -2") == -8


def test_hidden_decimals():
    assert evaluate("2.5 * 4") == pytest.approx(10.0)
    assert evaluate(".5 + .25") == pytest.approx(0.75)


def test_hidden_nested_parentheses():
    assert evaluate("((1 + 2) * (3 + 4)) / 7") == pytest.approx(3.0)


def test_hidden_division_by_zero():
    with pytest.raises(ZeroDivisionError):
        evaluate("1 / (2 - 2)")


def test_hidden_malformed():
    for bad in ("", "1 +", "(1 + 2", "1 + 2)", "2 ** 3", "1 $ 2", "3 4"):
        with pytest.raises(ValueError):
            evaluate(bad)
