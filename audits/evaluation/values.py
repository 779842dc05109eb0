"""What the constant evaluator computes, and the bounds it keeps.

A value is a Python str, bytes, int, float, bool, None, tuple or dict built from constants, or one
of two markers: UNKNOWN (the code computes it at run time) and Opaque (a literal the audit cannot
read, such as data that does not decode, or decodes past the size cap).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_LENGTH = 1 << 20  # characters or bytes of one built or decoded value
MAX_ITEMS = 4096  # elements of one built tuple, iterations of one comprehension
MAX_INT_BITS = 64
MAX_DEPTH = 200  # nested evaluations (expression depth plus name and helper hops)
MAX_STEPS = 100_000  # evaluations spent on one question (helpers that call helpers twice each)


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class Opaque:
    """A literal whose content the audit cannot read; `why` says what it is."""

    why: str


_ENCODED = re.compile(r"[A-Za-z0-9+/=_\-:.!#$%&()*;<>?@^`{|}~\\]+")
_UNREADABLE_SHARE = 0.05  # more non-printable characters than this: binary, not text


def fits(value):
    """The value, or UNKNOWN when it is larger than the audit builds."""
    if isinstance(value, (str, bytes)) and len(value) > MAX_LENGTH:
        return UNKNOWN
    if isinstance(value, (tuple, dict)) and len(value) > MAX_ITEMS:
        return UNKNOWN
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        return UNKNOWN
    return value


def is_known(value) -> bool:
    return value is not UNKNOWN and not isinstance(value, Opaque)


def items_of(value) -> tuple | None:
    """What iterating a constant yields (characters, byte values, keys), or None."""
    if isinstance(value, (tuple, str, bytes, dict)):
        return tuple(value)
    return None


def is_hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def as_text(value) -> str | None:
    """Readable text of a str, or of bytes that decode as UTF-8 text; else None."""
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(value, str):
        return None
    unreadable = sum(1 for c in value if not (c.isprintable() or c in "\n\r\t"))
    return value if unreadable <= _UNREADABLE_SHARE * len(value) else None


def looks_encoded(value, min_length: int = 24) -> bool:
    """Binary data, or a long run of text without spaces in an encoding's alphabet."""
    if isinstance(value, bytes):
        return len(value) >= min_length and as_text(value) is None
    return (
        isinstance(value, str)
        and len(value) >= min_length
        and bool(_ENCODED.fullmatch(value))
        and any(c.isdigit() for c in value)
    )


def excerpt(text: str, limit: int = 60) -> str:
    """The first line of `text`, shortened to `limit` characters."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= limit else first[: limit - 3] + "..."
