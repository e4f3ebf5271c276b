"""Roman numerals, 1..3999."""

VALUES = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]
DIGITS = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(n: int) -> str:
    if not 1 <= n <= 3999:
        raise ValueError(f"{n} is outside 1..3999")
    out = []
    for value, numeral in VALUES:
        while n >= value:
            out.append(numeral)
            n -= value
    return "".join(out)


def from_roman(s: str) -> int:
    if not s:
        raise ValueError("empty numeral")
    total = 0
    for i, ch in enumerate(s):
        if ch not in DIGITS:
            raise ValueError(f"{ch!r} is not a Roman digit")
        v = DIGITS[ch]
        if i + 1 < len(s) and s[i + 1] in DIGITS and DIGITS[s[i + 1]] > v:
            total -= v
        else:
            total += v
    return total
