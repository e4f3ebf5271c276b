from decimal import Decimal

from money import parse_amount, round_money, split_amount


def test_parse_amount():
    assert parse_amount("1,234.50") == Decimal("1234.50")


def test_round_money():
    assert round_money(Decimal("2.3449")) == Decimal("2.34")


def test_split_amount():
    assert split_amount(Decimal("100.00"), 3) == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
