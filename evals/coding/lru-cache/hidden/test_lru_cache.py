# eval-hidden: lru-cache
import pytest

from lru import LRUCache


def test_hidden_basic_eviction():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("c", 3)
    assert c.get("a") is None
    assert c.get("b") == 2 and c.get("c") == 3
    assert len(c) == 2


def test_hidden_get_refreshes():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1
    c.put("c", 3)
    assert c.get("b") is None
    assert c.get("a") == 1


def test_hidden_put_existing_refreshes_and_replaces():
    c = LRUCache(2)
    c.put("a", 1)
    c.put("b", 2)
    c.put("a", 10)
    assert len(c) == 2
    c.put("c", 3)
    assert c.get("a") == 10
    assert c.get("b") is None


def test_hidden_missing_default():
    c = LRUCache(1)
    assert c.get("zz", "none") == "none"
    c.put("x", 0)
    assert c.get("x", "none") == 0


def test_hidden_capacity_one():
    c = LRUCache(1)
    c.put(1, "one")
    c.put(2, "two")
    assert c.get(1) is None and c.get(2) == "two"


def test_hidden_bad_capacity():
    with pytest.raises(ValueError):
        LRUCache(0)
