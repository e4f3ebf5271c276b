# eval-hidden: interval-merge
import pytest

from intervals import merge_intervals


def test_hidden_empty():
    assert merge_intervals([]) == []


def test_hidden_unsorted_overlaps():
    assert merge_intervals([(8, 10), (1, 3), (2, 6), (15, 18)]) == [(1, 6), (8, 10), (15, 18)]


def test_hidden_touching_merge():
    assert merge_intervals([(1, 3), (3, 5)]) == [(1, 5)]
    assert merge_intervals([(5, 7), (1, 5), (7, 7)]) == [(1, 7)]


def test_hidden_contained():
    assert merge_intervals([(1, 10), (2, 3), (4, 5)]) == [(1, 10)]


def test_hidden_invalid_interval():
    with pytest.raises(ValueError):
        merge_intervals([(1, 2), (5, 4)])


def test_hidden_input_untouched():
    data = [(3, 4), (1, 2)]
    merge_intervals(data)
    assert data == [(3, 4), (1, 2)]


def test_hidden_adjacent_integers_stay_apart():
    assert merge_intervals([(1, 2), (3, 4)]) == [(1, 2), (3, 4)]
