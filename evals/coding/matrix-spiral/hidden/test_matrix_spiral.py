# eval-hidden: matrix-spiral
from spiral import spiral_order


def test_hidden_square():
    assert spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]


def test_hidden_wide():
    assert spiral_order([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) == [1, 2, 3, 4, 8, 12, 11, 10, 9, 5, 6, 7]


def test_hidden_tall():
    assert spiral_order([[1, 2], [3, 4], [5, 6], [7, 8]]) == [1, 2, 4, 6, 8, 7, 5, 3]


def test_hidden_single_row_and_column():
    assert spiral_order([[1, 2, 3]]) == [1, 2, 3]
    assert spiral_order([[1], [2], [3]]) == [1, 2, 3]


def test_hidden_empty():
    assert spiral_order([]) == []
    assert spiral_order([[]]) == []


def test_hidden_each_element_once():
    m = [[r * 7 + c for c in range(7)] for r in range(5)]
    assert sorted(spiral_order(m)) == list(range(35))
