"""Small text helpers."""


def normalize_spaces(text: str) -> str:
    """Collapse every run of whitespace to one space and strip both ends."""
    return " ".join(text.split())
