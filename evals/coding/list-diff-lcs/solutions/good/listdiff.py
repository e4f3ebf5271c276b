"""A minimal line diff from a longest-common-subsequence table."""


def diff(old: list[str], new: list[str]) -> list[tuple[str, str]]:
    n, m = len(old), len(new)
    # lcs[i][j]: LCS length of old[i:] and new[j:]
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = lcs[i + 1][j + 1] + 1 if old[i] == new[j] else max(lcs[i + 1][j], lcs[i][j + 1])
    out: list[tuple[str, str]] = []
    removed: list[tuple[str, str]] = []
    added: list[tuple[str, str]] = []
    i = j = 0
    while i < n or j < m:
        if i < n and j < m and old[i] == new[j]:
            out += removed + added
            removed, added = [], []
            out.append((" ", old[i]))
            i += 1
            j += 1
        elif j >= m or (i < n and lcs[i + 1][j] >= lcs[i][j + 1]):
            removed.append(("-", old[i]))
            i += 1
        else:
            added.append(("+", new[j]))
            j += 1
    return out + removed + added
