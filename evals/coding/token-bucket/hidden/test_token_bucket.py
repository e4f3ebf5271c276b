# eval-hidden: token-bucket
import pytest

from ratelimit import TokenBucket


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_hidden_starts_full():
    clock = FakeClock()
    b = TokenBucket(rate=1, capacity=3, clock=clock)
    assert [b.allow() for _ in range(4)] == [True, True, True, False]


def test_hidden_refills_with_time():
    clock = FakeClock()
    b = TokenBucket(rate=2, capacity=2, clock=clock)
    assert b.allow(2)
    assert not b.allow()
    clock.now += 0.5
    assert b.allow()
    assert not b.allow()


def test_hidden_capped_after_idle():
    clock = FakeClock()
    b = TokenBucket(rate=10, capacity=5, clock=clock)
    assert b.allow(5)
    clock.now += 3600
    assert [b.allow() for _ in range(6)] == [True] * 5 + [False]


def test_hidden_refused_request_takes_nothing():
    clock = FakeClock()
    b = TokenBucket(rate=1, capacity=4, clock=clock)
    assert b.allow(3)
    assert not b.allow(2)
    assert b.allow(1)


def test_hidden_clock_backwards_adds_nothing():
    clock = FakeClock()
    b = TokenBucket(rate=1, capacity=2, clock=clock)
    assert b.allow(2)
    clock.now -= 100
    assert not b.allow()
    clock.now += 100
    assert not b.allow()


def test_hidden_invalid_arguments():
    clock = FakeClock()
    for rate, capacity in ((0, 1), (1, 0), (-1, 5)):
        with pytest.raises(ValueError):
            TokenBucket(rate=rate, capacity=capacity, clock=clock)
    b = TokenBucket(rate=1, capacity=2, clock=clock)
    with pytest.raises(ValueError):
        b.allow(3)
    with pytest.raises(ValueError):
        b.allow(0)
