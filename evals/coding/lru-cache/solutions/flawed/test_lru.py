import pytest

from lru import LRUCache


def test_evicts_oldest():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("c", 3)
    assert c.get("a") is None
    assert len(c) == 2


def test_replace_value():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("a", 2)
    assert c.get("a") == 2


def test_zero_capacity():
    with pytest.raises(ValueError):
        LRUCache(0)
