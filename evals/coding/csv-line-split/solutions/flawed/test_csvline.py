from csvline import split_csv_line


def test_simple():
    assert split_csv_line("a,b") == ["a", "b"]


def test_quoted_comma():
    assert split_csv_line('"x, y",z') == ["x, y", "z"]


def test_empty_middle_field():
    assert split_csv_line("a,,c") == ["a", "", "c"]
