from datetime import date

import pytest

from daterange import overlap_days


def test_overlap_counts_both_ends():
    assert overlap_days(date(2024, 1, 1), date(2024, 1, 10), date(2024, 1, 5), date(2024, 1, 20)) == 6


def test_disjoint():
    assert overlap_days(date(2024, 1, 1), date(2024, 1, 2), date(2024, 2, 1), date(2024, 2, 2)) == 0


def test_reversed():
    with pytest.raises(ValueError):
        overlap_days(date(2024, 1, 2), date(2024, 1, 1), date(2024, 1, 1), date(2024, 1, 1))
