# eval-hidden: dijkstra-shortest-path
import math

import pytest

from paths import shortest_path


def test_hidden_more_edges_cheaper():
    edges = [("a", "b", 10), ("a", "c", 1), ("c", "d", 1), ("d", "b", 1)]
    assert shortest_path(edges, "a", "b") == (3, ["a", "c", "d", "b"])


def test_hidden_cheaper_route_found_late():
    edges = [("s", "a", 1), ("s", "b", 4), ("a", "c", 5), ("b", "c", 1), ("c", "t", 1)]
    assert shortest_path(edges, "s", "t") == (6, ["s", "b", "c", "t"])


def test_hidden_directed():
    edges = [("a", "b", 1)]
    assert shortest_path(edges, "b", "a") == (math.inf, [])


def test_hidden_parallel_edges():
    edges = [("a", "b", 5), ("a", "b", 2)]
    assert shortest_path(edges, "a", "b") == (2, ["a", "b"])


def test_hidden_same_node():
    assert shortest_path([("a", "b", 1)], "a", "a") == (0, ["a"])


def test_hidden_unknown_nodes():
    assert shortest_path([("a", "b", 1)], "a", "zzz") == (math.inf, [])
    assert shortest_path([], "x", "y") == (math.inf, [])


def test_hidden_negative_weight():
    with pytest.raises(ValueError):
        shortest_path([("a", "b", -1)], "a", "b")


def test_hidden_zero_weight_edges():
    edges = [("a", "b", 0), ("b", "c", 0), ("a", "c", 1)]
    assert shortest_path(edges, "a", "c") == (0, ["a", "b", "c"])
