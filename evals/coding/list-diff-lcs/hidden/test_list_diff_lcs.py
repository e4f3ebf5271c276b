# eval-hidden: list-diff-lcs
import random

from listdiff import diff


def _lcs_len(a, b):
    t = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            t[i][j] = t[i + 1][j + 1] + 1 if a[i] == b[j] else max(t[i + 1][j], t[i][j + 1])
    return t[0][0]


def _check(old, new):
    d = diff(old, new)
    assert [l for op, l in d if op in " -"] == old
    assert [l for op, l in d if op in " +"] == new
    assert sum(op == " " for op, _ in d) == _lcs_len(old, new)
    return d


def test_hidden_identical():
    assert diff(["a", "b"], ["a", "b"]) == [(" ", "a"), (" ", "b")]


def test_hidden_empty_sides():
    assert diff([], []) == []
    assert diff([], ["x"]) == [("+", "x")]
    assert diff(["x"], []) == [("-", "x")]


def test_hidden_replacement_order():
    assert diff(["a", "b", "c"], ["a", "x", "c"]) == [(" ", "a"), ("-", "b"), ("+", "x"), (" ", "c")]


def test_hidden_minimal_when_greedy_is_not():
    _check(["a", "b", "c", "d"], ["b", "c", "d", "a"])
    _check(["x", "a", "b", "c"], ["a", "b", "c", "x"])


def test_hidden_random_minimal():
    rng = random.Random(11)
    for _ in range(150):
        old = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        new = [rng.choice("abcd") for _ in range(rng.randint(0, 9))]
        _check(old, new)


def test_hidden_removals_before_additions():
    d = _check(["a", "b", "c", "z"], ["x", "y", "z"])
    ops = "".join(op for op, _ in d)
    assert ops == "---++ "
