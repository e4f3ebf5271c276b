# eval-hidden: topological-sort
import pytest

from toposort import CycleError, topo_sort


def _respects(order, deps):
    pos = {n: i for i, n in enumerate(order)}
    return all(pos[d] < pos[n] for n, ds in deps.items() for d in ds)


def test_hidden_chain():
    assert topo_sort({"c": ["b"], "b": ["a"], "a": []}) == ["a", "b", "c"]


def test_hidden_dependency_only_nodes_included():
    deps = {"app": ["lib", "log"], "lib": ["core"]}
    order = topo_sort(deps)
    assert sorted(order) == ["app", "core", "lib", "log"]
    assert _respects(order, deps)


def test_hidden_alphabetical_ties():
    assert topo_sort({"z": [], "m": [], "a": []}) == ["a", "m", "z"]
    assert topo_sort({"d": ["b", "c"], "c": ["a"], "b": ["a"]}) == ["a", "b", "c", "d"]


def test_hidden_empty():
    assert topo_sort({}) == []


def test_hidden_cycle():
    with pytest.raises(CycleError) as info:
        topo_sort({"a": ["b"], "b": ["c"], "c": ["a"], "d": []})
    assert all(n in str(info.value) for n in ("a", "b", "c"))


def test_hidden_self_cycle():
    with pytest.raises(CycleError):
        topo_sort({"a": ["a"]})


def test_hidden_cycle_error_is_value_error():
    assert issubclass(CycleError, ValueError)
