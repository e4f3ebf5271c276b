import pytest

from intervals import merge_intervals


def test_overlapping():
    assert merge_intervals([(1, 4), (2, 6), (8, 9)]) == [(1, 6), (8, 9)]


def test_unsorted_input():
    assert merge_intervals([(10, 12), (0, 2)]) == [(0, 2), (10, 12)]


def test_reversed_interval():
    with pytest.raises(ValueError):
        merge_intervals([(3, 1)])
