from spiral import spiral_order


def test_two_by_two():
    assert spiral_order([[1, 2], [3, 4]]) == [1, 2, 4, 3]


def test_three_by_three():
    assert spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]


def test_empty():
    assert spiral_order([]) == []
