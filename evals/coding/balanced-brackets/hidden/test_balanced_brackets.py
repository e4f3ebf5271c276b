# eval-hidden: balanced-brackets
from brackets import is_balanced


def test_hidden_empty_and_plain_text():
    assert is_balanced("")
    assert is_balanced("no brackets here")


def test_hidden_nested_kinds():
    assert is_balanced("{[()()]}")
    assert is_balanced("f(a[1], {b: 2})")


def test_hidden_crossed_is_unbalanced():
    assert not is_balanced("([)]")


def test_hidden_unclosed_opening():
    assert not is_balanced("(((")
    assert not is_balanced("{[]")


def test_hidden_unmatched_closing():
    assert not is_balanced("())")
    assert not is_balanced("]")


def test_hidden_closing_before_opening():
    assert not is_balanced(")(")
