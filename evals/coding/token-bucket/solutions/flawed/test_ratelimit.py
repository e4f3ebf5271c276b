import pytest

from ratelimit import TokenBucket


def test_burst_then_refused():
    t = [0.0]
    b = TokenBucket(rate=1, capacity=2, clock=lambda: t[0])
    assert b.allow() and b.allow()
    assert not b.allow()


def test_refill():
    t = [0.0]
    b = TokenBucket(rate=1, capacity=1, clock=lambda: t[0])
    assert b.allow()
    t[0] = 1.0
    assert b.allow()


def test_bad_rate():
    with pytest.raises(ValueError):
        TokenBucket(rate=0, capacity=1, clock=lambda: 0.0)
