import pytest

from config_reader import parse_bool, parse_ini


def test_parse_bool():
    assert parse_bool(" Yes ") is True
    assert parse_bool("off") is False


def test_parse_ini_sections():
    assert parse_ini("[a]\nx = 1\n# note\n[b]\ny=2\n") == {"a": {"x": "1"}, "b": {"y": "2"}}


def test_key_before_section():
    with pytest.raises(ValueError):
        parse_ini("x = 1\n")
