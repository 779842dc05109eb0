"""Where two texts first differ, said in a line."""

from __future__ import annotations


def text_difference(want: str, got: str, *, was: str = "", became: str = "became") -> str:
    """'' when equal; else the first differing line, both versions around the first differing
    character."""
    if want == got:
        return ""
    wanted, gotten = want.splitlines(), got.splitlines()
    for number, (a, b) in enumerate(zip(wanted, gotten, strict=False), 1):
        if a != b:
            pairs = zip(a, b, strict=False)
            at = next((i for i, (x, y) in enumerate(pairs) if x != y), min(len(a), len(b)))
            start = max(0, at - 40)
            return f"line {number}: {was}`{a[start : at + 60]}` {became} `{b[start : at + 60]}`"
    shorter = min(len(wanted), len(gotten))
    return f"{len(wanted)} lines {became} {len(gotten)} (from line {shorter + 1} on)"
