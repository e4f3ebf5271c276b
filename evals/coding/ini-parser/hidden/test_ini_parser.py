# eval-hidden: ini-parser
import pytest

from config_reader import parse_bool, parse_ini


def test_hidden_sections_and_keys():
    text = "[db]\nhost = localhost\nport=5432\n\n[app]\nname = demo\n"
    assert parse_ini(text) == {"db": {"host": "localhost", "port": "5432"}, "app": {"name": "demo"}}


def test_hidden_value_with_equals():
    assert parse_ini("[s]\nurl = postgres://u@h/db?a=b\n") == {"s": {"url": "postgres://u@h/db?a=b"}}


def test_hidden_comments_and_blank_lines():
    text = "; top comment\n# another\n[s]\n  ; indented comment\nk = v\n\n"
    assert parse_ini(text) == {"s": {"k": "v"}}


def test_hidden_empty_value_and_empty_section():
    assert parse_ini("[a]\nk =\n[b]\n") == {"a": {"k": ""}, "b": {}}


def test_hidden_repeated_section_and_key():
    assert parse_ini("[s]\na = 1\n[t]\n[s]\na = 2\nb = 3\n") == {"s": {"a": "2", "b": "3"}, "t": {}}


def test_hidden_key_before_section():
    with pytest.raises(ValueError, match="1"):
        parse_ini("k = v\n[s]\n")


def test_hidden_garbage_line_number():
    with pytest.raises(ValueError, match="3"):
        parse_ini("[s]\na = 1\nthis is not ini\n")


def test_hidden_parse_bool_kept():
    assert parse_bool("ON") is True
