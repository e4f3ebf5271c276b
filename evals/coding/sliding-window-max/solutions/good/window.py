"""Sliding-window maximum with a monotonic deque."""

from collections import deque


def sliding_max(nums: list[int], k: int) -> list[int]:
    if k < 1:
        raise ValueError("k must be at least 1")
    out: list[int] = []
    q: deque[int] = deque()  # indices, their values decreasing
    for i, x in enumerate(nums):
        while q and nums[q[-1]] <= x:
            q.pop()
        q.append(i)
        if q[0] <= i - k:
            q.popleft()
        if i >= k - 1:
            out.append(nums[q[0]])
    return out
