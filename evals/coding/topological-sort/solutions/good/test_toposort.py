import pytest

from toposort import CycleError, topo_sort


def test_chain():
    assert topo_sort({"b": ["a"], "a": [], "c": ["b"]}) == ["a", "b", "c"]


def test_ties_alphabetical():
    assert topo_sort({"y": [], "x": []}) == ["x", "y"]


def test_cycle():
    with pytest.raises(CycleError):
        topo_sort({"a": ["b"], "b": ["a"]})
