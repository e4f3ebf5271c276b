# eval-hidden: date-range-overlap
from datetime import date

import pytest

from daterange import overlap_days


def test_hidden_partial_overlap():
    assert overlap_days(date(2024, 1, 1), date(2024, 1, 10), date(2024, 1, 5), date(2024, 1, 20)) == 6


def test_hidden_touching_ranges_share_one_day():
    assert overlap_days(date(2024, 1, 1), date(2024, 1, 5), date(2024, 1, 5), date(2024, 1, 9)) == 1


def test_hidden_single_day_ranges():
    d = date(2024, 2, 29)
    assert overlap_days(d, d, d, d) == 1


def test_hidden_contained():
    assert overlap_days(date(2024, 1, 1), date(2024, 12, 31), date(2024, 3, 1), date(2024, 3, 31)) == 31


def test_hidden_disjoint():
    assert overlap_days(date(2024, 1, 1), date(2024, 1, 5), date(2024, 1, 6), date(2024, 1, 9)) == 0
    assert overlap_days(date(2024, 5, 1), date(2024, 5, 5), date(2024, 1, 1), date(2024, 1, 2)) == 0


def test_hidden_symmetric():
    a = (date(2023, 12, 20), date(2024, 1, 3))
    b = (date(2024, 1, 1), date(2024, 1, 31))
    assert overlap_days(*a, *b) == overlap_days(*b, *a) == 3


def test_hidden_reversed_range():
    with pytest.raises(ValueError):
        overlap_days(date(2024, 1, 5), date(2024, 1, 1), date(2024, 1, 1), date(2024, 1, 2))
    with pytest.raises(ValueError):
        overlap_days(date(2024, 1, 1), date(2024, 1, 2), date(2024, 1, 5), date(2024, 1, 1))
