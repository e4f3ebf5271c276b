"""Integer conversion to and from bases 2..36."""

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _check_base(base: int) -> None:
    if not 2 <= base <= 36:
        raise ValueError(f"base must be in 2..36, got {base}")


def to_base(n: int, base: int) -> str:
    _check_base(base)
    sign = "-" if n < 0 else ""
    n = abs(n)
    out = []
    while n:
        n, r = divmod(n, base)
        out.append(DIGITS[r])
    return sign + "".join(reversed(out))


def from_base(digits: str, base: int) -> int:
    _check_base(base)
    text = digits.strip().lower()
    sign = 1
    if text.startswith("-"):
        sign, text = -1, text[1:]
    if not text:
        raise ValueError("no digits")
    value = 0
    for ch in text:
        d = DIGITS.find(ch)
        if d < 0 or d >= base:
            raise ValueError(f"{ch!r} is not a digit in base {base}")
        value = value * base + d
    return sign * value
