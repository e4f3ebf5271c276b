# eval-hidden: csv-line-split
import pytest

from csvline import split_csv_line


def test_hidden_plain():
    assert split_csv_line("a,b,c") == ["a", "b", "c"]


def test_hidden_quoted_comma():
    assert split_csv_line('"Smith, John",42') == ["Smith, John", "42"]


def test_hidden_doubled_quote():
    assert split_csv_line('"say ""hi""",x') == ['say "hi"', "x"]


def test_hidden_empty_fields():
    assert split_csv_line("a,,b") == ["a", "", "b"]
    assert split_csv_line("a,,b,") == ["a", "", "b", ""]
    assert split_csv_line(",") == ["", ""]


def test_hidden_empty_line_is_one_field():
    assert split_csv_line("") == [""]


def test_hidden_quoted_empty():
    assert split_csv_line('"",a') == ["", "a"]


def test_hidden_unterminated():
    with pytest.raises(ValueError):
        split_csv_line('a,"open')
