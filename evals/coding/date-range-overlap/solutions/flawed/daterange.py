"""Overlap of inclusive date ranges."""

from datetime import date


def overlap_days(a_start: date, a_end: date, b_start: date, b_end: date) -> int:
    if a_end < a_start or b_end < b_start:
        raise ValueError("a range ends before it starts")
    start = max(a_start, b_start)
    end = min(a_end, b_end)
    if end <= start:
        return 0
    return (end - start).days + 1
