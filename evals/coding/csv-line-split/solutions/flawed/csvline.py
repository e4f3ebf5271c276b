"""Splitting one CSV line into fields."""


def split_csv_line(line: str) -> list[str]:
    fields: list[str] = []
    field: list[str] = []
    i = 0
    in_quotes = False
    while i < len(line):
        ch = line[i]
        if in_quotes:
            if ch == '"':
                if i + 1 < len(line) and line[i + 1] == '"':
                    field.append('"')
                    i += 1
                else:
                    in_quotes = False
            else:
                field.append(ch)
        elif ch == '"':
            in_quotes = True
        elif ch == ",":
            fields.append("".join(field))
            field = []
        else:
            field.append(ch)
        i += 1
    if in_quotes:
        raise ValueError("unterminated quoted field")
    if field:
        fields.append("".join(field))
    return fields
