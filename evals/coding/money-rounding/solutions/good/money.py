"""Money amounts as Decimal."""

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

CENT = Decimal("0.01")


def parse_amount(text: str) -> Decimal:
    """'1,234.50' or '-3' as a Decimal; anything else raises ValueError."""
    try:
        return Decimal(text.replace(",", "").strip())
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None


def round_money(amount: Decimal, places: int = 2) -> Decimal:
    """Banker's rounding (half to even) to `places` decimal places."""
    if places < 0:
        raise ValueError("places must be >= 0")
    return Decimal(amount).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)


def split_amount(total: Decimal, parts: int) -> list[Decimal]:
    """Whole-cent parts that add up to total exactly, the larger (in magnitude) first."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    cents = int((Decimal(total) / CENT).to_integral_value())
    sign = -1 if cents < 0 else 1
    base, extra = divmod(abs(cents), parts)
    return [sign * (base + (1 if i < extra else 0)) * CENT for i in range(parts)]
