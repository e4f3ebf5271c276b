import pytest

from window import sliding_max


def test_whole_list_window():
    assert sliding_max([3, 1, 2], 3) == [3]


def test_k_too_large():
    assert sliding_max([1], 2) == []


def test_bad_k():
    with pytest.raises(ValueError):
        sliding_max([1], 0)
