"""A token-bucket rate limiter with an injected clock."""

import time
from typing import Callable


class TokenBucket:
    def __init__(self, rate: float, capacity: float, clock: Callable[[], float] = time.monotonic):
        if rate <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = float(capacity)
        self._last = clock()

    def _refill(self) -> None:
        now = self._clock()
        if now > self._last:
            self._tokens += (now - self._last) * self.rate
            # Only forward: after a clock goes backwards, the time until it is back is not counted twice.
            self._last = now

    def allow(self, cost: float = 1) -> bool:
        if cost <= 0 or cost > self.capacity:
            raise ValueError(f"cost must be in (0, {self.capacity}]")
        self._refill()
        if self._tokens >= cost:
            self._tokens -= cost
            return True
        return False
