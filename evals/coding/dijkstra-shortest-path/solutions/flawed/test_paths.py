import math

import pytest

from paths import shortest_path


def test_simple_route():
    assert shortest_path([("a", "b", 1), ("b", "c", 2)], "a", "c") == (3, ["a", "b", "c"])


def test_unreachable():
    assert shortest_path([("a", "b", 1)], "b", "a") == (math.inf, [])


def test_negative():
    with pytest.raises(ValueError):
        shortest_path([("a", "b", -2)], "a", "b")
