# eval-hidden: money-rounding
from decimal import Decimal as D

import pytest

from money import parse_amount, round_money, split_amount


def test_hidden_half_to_even():
    assert round_money(D("2.345")) == D("2.34")
    assert round_money(D("2.355")) == D("2.36")
    assert round_money(D("0.125")) == D("0.12")
    assert round_money(D("-1.005")) == D("-1.00")


def test_hidden_not_a_tie():
    assert round_money(D("2.3451")) == D("2.35")
    assert round_money(D("1.994")) == D("1.99")


def test_hidden_places():
    assert round_money(D("2.5"), 0) == D("2")
    assert round_money(D("3.5"), 0) == D("4")
    assert round_money(D("1.23456"), 4) == D("1.2346")
    with pytest.raises(ValueError):
        round_money(D("1"), -1)


def test_hidden_split_even_and_uneven():
    assert split_amount(D("10.00"), 4) == [D("2.50")] * 4
    assert split_amount(D("100.00"), 3) == [D("33.34"), D("33.33"), D("33.33")]
    assert split_amount(D("0.05"), 3) == [D("0.02"), D("0.02"), D("0.01")]


def test_hidden_split_sums_exactly():
    for total in ("0.01", "7.77", "1000.03", "19.99"):
        for parts in range(1, 9):
            pieces = split_amount(D(total), parts)
            assert len(pieces) == parts
            assert sum(pieces) == D(total)
            assert max(pieces) - min(pieces) <= D("0.01")


def test_hidden_split_negative():
    assert split_amount(D("-10.00"), 3) == [D("-3.34"), D("-3.33"), D("-3.33")]


def test_hidden_split_bad_parts():
    with pytest.raises(ValueError):
        split_amount(D("1.00"), 0)


def test_hidden_parse_amount_kept():
    assert parse_amount(" -3 ") == D("-3")
