import pytest

from config_reader import parse_bool


def test_parse_bool():
    assert parse_bool(" Yes ") is True
    assert parse_bool("off") is False
    with pytest.raises(ValueError):
        parse_bool("maybe")
