"""Run-length encoding: each run as <count><char>."""


def rle_encode(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        j = i
        while j < len(text) and text[j] == text[i]:
            j += 1
        out.append(f"{j - i}{text[i]}")
        i = j
    return "".join(out)


def rle_decode(encoded: str) -> str:
    out = []
    count = ""
    for ch in encoded:
        if ch.isdigit():
            count += ch
        else:
            if not count:
                raise ValueError(f"character {ch!r} has no count")
            out.append(ch * int(count))
            count = ""
    if count:
        raise ValueError("trailing count without a character")
    return "".join(out)
