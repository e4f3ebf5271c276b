# eval-hidden: sliding-window-max
import random

import pytest

from window import sliding_max


def test_hidden_classic():
    assert sliding_max([1, 3, -1, -3, 5, 3, 6, 7], 3) == [3, 3, 5, 5, 6, 7]


def test_hidden_last_window_included():
    assert sliding_max([1, 2, 3, 9], 2) == [2, 3, 9]


def test_hidden_k_equals_length():
    assert sliding_max([4, 2, 8], 3) == [8]


def test_hidden_k_one_is_identity():
    assert sliding_max([5, -1, 5, 0], 1) == [5, -1, 5, 0]


def test_hidden_k_too_large_and_empty():
    assert sliding_max([1, 2], 3) == []
    assert sliding_max([], 1) == []


def test_hidden_bad_k():
    with pytest.raises(ValueError):
        sliding_max([1, 2], 0)


def test_hidden_matches_brute_force():
    rng = random.Random(7)
    for _ in range(200):
        nums = [rng.randint(-5, 5) for _ in range(rng.randint(0, 15))]
        k = rng.randint(1, 6)
        expected = [max(nums[i:i + k]) for i in range(len(nums) - k + 1)]
        assert sliding_max(nums, k) == expected
