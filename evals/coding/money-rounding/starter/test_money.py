from decimal import Decimal

from money import parse_amount


def test_parse_amount():
    assert parse_amount("1,234.50") == Decimal("1234.50")
