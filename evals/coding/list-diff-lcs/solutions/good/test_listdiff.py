from listdiff import diff


def test_same():
    assert diff(["a"], ["a"]) == [(" ", "a")]


def test_added_line():
    assert diff(["a", "c"], ["a", "b", "c"]) == [(" ", "a"), ("+", "b"), (" ", "c")]


def test_removed_line():
    assert diff(["a", "b"], ["a"]) == [(" ", "a"), ("-", "b")]
