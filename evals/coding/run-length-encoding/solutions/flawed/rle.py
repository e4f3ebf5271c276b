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
    if len(encoded) % 2:
        raise ValueError("malformed run-length text")
    out = []
    for i in range(0, len(encoded), 2):
        count, ch = encoded[i], encoded[i + 1]
        if not count.isdigit() or ch.isdigit():
            raise ValueError("malformed run-length text")
        out.append(ch * int(count))
    return "".join(out)
