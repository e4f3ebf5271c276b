"""Money amounts as Decimal."""

from decimal import Decimal, InvalidOperation


def parse_amount(text: str) -> Decimal:
    """'1,234.50' or '-3' as a Decimal; anything else raises ValueError."""
    try:
        return Decimal(text.replace(",", "").strip())
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
