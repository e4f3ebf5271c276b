"""A line diff: keep a line when it appears later in the other list."""


def diff(old: list[str], new: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    j = 0
    for line in old:
        if line in new[j:]:
            k = new.index(line, j)
            out += [("+", x) for x in new[j:k]]
            out.append((" ", line))
            j = k + 1
        else:
            out.append(("-", line))
    out += [("+", x) for x in new[j:]]
    return out
