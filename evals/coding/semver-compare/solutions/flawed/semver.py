"""Semantic Versioning 2.0.0 precedence."""

import re

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$")


def _parse(v: str):
    m = _VERSION.match(v)
    if not m:
        raise ValueError(f"not a semantic version: {v!r}")
    core = tuple(int(x) for x in m.group(1, 2, 3))
    pre = m.group(4).split(".") if m.group(4) else []
    return core, pre


def _cmp(x, y) -> int:
    return (x > y) - (x < y)


def _cmp_identifier(x: str, y: str) -> int:
    if x.isdigit() and not y.isdigit():
        return -1
    if y.isdigit() and not x.isdigit():
        return 1
    return _cmp(x, y)


def compare_versions(a: str, b: str) -> int:
    core_a, pre_a = _parse(a)
    core_b, pre_b = _parse(b)
    if core_a != core_b:
        return _cmp(core_a, core_b)
    if not pre_a or not pre_b:
        return _cmp(not pre_a, not pre_b)
    for x, y in zip(pre_a, pre_b):
        c = _cmp_identifier(x, y)
        if c:
            return c
    return _cmp(len(pre_a), len(pre_b))
