"""Reading configuration values."""

TRUE_WORDS = {"1", "true", "yes", "on"}
FALSE_WORDS = {"0", "false", "no", "off"}


def parse_bool(value: str) -> bool:
    """A configuration flag: true/yes/on/1 or false/no/off/0, any case."""
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def parse_ini(text: str) -> dict[str, dict[str, str]]:
    """INI text as {section: {key: value}}; errors name the 1-based line."""
    result: dict[str, dict[str, str]] = {}
    section: dict[str, str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = result.setdefault(line[1:-1].strip(), {})
            continue
        if "=" not in line:
            raise ValueError(f"line {number}: expected [section] or key = value, got {raw!r}")
        if section is None:
            raise ValueError(f"line {number}: key before any [section]")
        key, value = line.split("=", 1)
        section[key.strip()] = value.strip()
    return result
