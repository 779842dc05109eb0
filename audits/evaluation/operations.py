"""What the evaluator does to constants: operators, str and bytes methods, builtins and formatting.

Every operation is bounded: a repetition, padding, replacement or format width that would build
more than MAX_LENGTH, or an integer past MAX_INT_BITS, yields UNKNOWN instead of being computed.
"""

from __future__ import annotations

import operator
import re
import string

from audits.evaluation.decoders import apply_codec
from audits.evaluation.values import MAX_INT_BITS, MAX_ITEMS, MAX_LENGTH, UNKNOWN, Opaque, fits

_SCALARS = (str, bytes, int, float, bool, type(None))
_ARITHMETIC = {
    "Add": operator.add, "Subtract": operator.sub, "Multiply": operator.mul,
    "FloorDivide": operator.floordiv, "Modulo": operator.mod, "BitOr": operator.or_,
    "BitAnd": operator.and_, "BitXor": operator.xor, "RightShift": operator.rshift,
}  # fmt: skip
# Methods whose result is no larger than the receiver (or is a flag, a count, an index).
_SHRINKING_METHODS = {
    "lower", "upper", "casefold", "title", "capitalize", "swapcase", "strip", "lstrip", "rstrip",
    "removeprefix", "removesuffix", "split", "rsplit", "partition", "rpartition", "splitlines",
    "startswith", "endswith", "find", "rfind", "index", "rindex", "count", "isidentifier",
    "isalpha", "isdigit", "isalnum", "islower", "isupper", "hex",
}  # fmt: skip
_PADDING_METHODS = {"zfill", "center", "ljust", "rjust"}
TEXT_METHODS = frozenset(
    _SHRINKING_METHODS
    | _PADDING_METHODS
    | {"replace", "expandtabs", "translate", "join", "format", "decode", "encode"}
)
_WIDTH = re.compile(r"\d+")
_PERCENT_FIELD = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[a-zA-Z%]")
MAX_WIDTH = 10_000


def binary(operation: str, left, right):
    """`left <operation> right` for libcst's operator class names (`Add`, `Modulo`, ...)."""
    for side in (left, right):
        if isinstance(side, Opaque):
            return side
    if operation == "Modulo" and isinstance(left, (str, bytes)):
        return percent_format(left, right)
    if operation == "Multiply":
        return _repeat(left, right) if not isinstance(left, int) else _repeat(right, left)
    if operation == "Power" and _are_ints(left, right) and 0 <= right <= MAX_INT_BITS:
        return (
            fits(left**right) if abs(left) < 2 or right * abs(left).bit_length() < 256 else UNKNOWN
        )
    if operation == "LeftShift" and _are_ints(left, right) and 0 <= right <= MAX_INT_BITS:
        return fits(left << right)
    function = _ARITHMETIC.get(operation)
    if function is None or not _same_kind(left, right):
        return UNKNOWN
    if operation != "Add" and not _are_ints(left, right):
        return UNKNOWN
    try:
        return fits(function(left, right))
    except (ZeroDivisionError, TypeError):
        return UNKNOWN


def method(receiver, name: str, arguments: list, keywords: dict):
    """`receiver.name(*arguments, **keywords)` for str, bytes and tuple receivers."""
    if isinstance(receiver, Opaque):
        return receiver
    if not isinstance(receiver, (str, bytes)) or not _all_constants(
        [*arguments, *keywords.values()]
    ):
        return UNKNOWN
    if name in ("decode", "encode"):
        codec = arguments[0] if arguments else keywords.get("encoding", "utf-8")
        errors = arguments[1] if len(arguments) > 1 else keywords.get("errors", "strict")
        return apply_codec(receiver, codec, errors, decoding=name == "decode")
    if name == "join":
        return _join(receiver, arguments)
    if name == "format" and isinstance(receiver, str):
        return str_format(receiver, arguments, keywords)
    if name == "replace" and not _replacement_fits(receiver, arguments):
        return UNKNOWN
    if name in _PADDING_METHODS and not (arguments and _small(arguments[0])):
        return UNKNOWN
    if name == "expandtabs" and not (arguments and _small(arguments[0], 64)):
        return UNKNOWN
    if name not in TEXT_METHODS:
        return UNKNOWN
    if name == "translate" and not _small_table(arguments[0] if arguments else None):
        return UNKNOWN
    try:
        result = getattr(receiver, name)(*arguments, **keywords)
    except (AttributeError, TypeError, ValueError):
        return UNKNOWN
    return fits(tuple(result) if isinstance(result, list) else result)


def maketrans(arguments: list):
    """`str.maketrans("ab", "cd")` (a table `translate` takes)."""
    if 1 < len(arguments) <= 3 and all(isinstance(a, str) for a in arguments):
        try:
            return str.maketrans(*arguments)
        except ValueError:
            return UNKNOWN
    return UNKNOWN


def builtin(name: str, arguments: list, keywords: dict):
    """str(), repr(), chr(), ord(), int(), bytes(), len(), tuple(), sorted(), format(), ..."""
    if any(isinstance(a, Opaque) for a in arguments):
        return next(a for a in arguments if isinstance(a, Opaque))
    if keywords or not _all_constants(arguments) or not arguments:
        return UNKNOWN
    first = arguments[0]
    try:
        if name in ("str", "repr") and len(arguments) == 1:
            return fits(str(first) if name == "str" else repr(first))
        if name == "chr" and isinstance(first, int):
            return chr(first)
        if name == "ord" and isinstance(first, (str, bytes)):
            return ord(first)
        if name == "int" and isinstance(first, (str, bytes)) and len(first) <= 100:
            return fits(int(*arguments))
        if name in ("bytes", "bytearray"):
            return _bytes(arguments)
        if name == "len" and isinstance(first, (str, bytes, tuple, dict)):
            return len(first)
        if name in ("tuple", "list", "sorted", "reversed", "set", "frozenset"):
            items = tuple(first) if isinstance(first, (str, bytes, tuple, dict)) else UNKNOWN
            if items is UNKNOWN or len(arguments) != 1:
                return UNKNOWN
            return (
                tuple(sorted(items))
                if name == "sorted"
                else items[::-1]
                if name == "reversed"
                else items
            )
        if name == "format" and len(arguments) == 2 and isinstance(arguments[1], str):
            return format_value(first, arguments[1])
    except (ValueError, TypeError, OverflowError):
        return UNKNOWN
    return UNKNOWN


def format_value(value, spec: str):
    """`format(value, spec)`, as an f-string field `{value:spec}` does."""
    if isinstance(value, Opaque):
        return value
    if not isinstance(value, _SCALARS) or not _spec_fits(spec):
        return UNKNOWN
    try:
        return fits(format(value, spec))
    except (ValueError, TypeError):
        return UNKNOWN


def str_format(template: str, arguments: list, keywords: dict):
    """`template.format(...)` with plain fields only (no attribute or item access)."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return UNKNOWN
    for _, field, spec, _ in fields:
        if field and ("." in field or "[" in field):
            return UNKNOWN
        if spec and ("{" in spec or not _spec_fits(spec)):
            return UNKNOWN
    if not all(isinstance(v, (*_SCALARS, tuple)) for v in [*arguments, *keywords.values()]):
        return UNKNOWN
    try:
        return fits(template.format(*arguments, **keywords))
    except (IndexError, KeyError, ValueError, TypeError):
        return UNKNOWN


def percent_format(template, values):
    """`template % values`, refusing widths that would build more than the cap."""
    for width, precision in _PERCENT_FIELD.findall(
        template if isinstance(template, str) else template.decode("latin-1")
    ):
        if (
            "*" in (width, precision)
            or not _small(int(width or 0))
            or not _small(int(precision or 0))
        ):
            return UNKNOWN
    if not isinstance(values, (*_SCALARS, tuple, dict)) or not _all_constants(
        values if isinstance(values, tuple) else [values]
    ):
        return UNKNOWN
    try:
        return fits(template % values)
    except (TypeError, ValueError, KeyError):
        return UNKNOWN


def _join(separator, arguments: list):
    items = arguments[0] if len(arguments) == 1 else UNKNOWN
    if isinstance(items, (str, bytes)) and type(items) is type(separator):
        items = tuple(items) if isinstance(items, str) else tuple(bytes([b]) for b in items)
    if not isinstance(items, tuple) or not all(type(i) is type(separator) for i in items):
        return UNKNOWN
    if sum(map(len, items)) + len(separator) * len(items) > MAX_LENGTH:
        return UNKNOWN
    return separator.join(items)


def _repeat(sequence, times):
    if not isinstance(times, int) or isinstance(times, bool):
        return UNKNOWN
    if isinstance(sequence, int):
        return fits(sequence * times)
    if not isinstance(sequence, (str, bytes, tuple)):
        return UNKNOWN
    limit = MAX_ITEMS if isinstance(sequence, tuple) else MAX_LENGTH
    return sequence * times if len(sequence) * max(times, 0) <= limit else UNKNOWN


def _replacement_fits(receiver, arguments: list) -> bool:
    if len(arguments) < 2 or type(arguments[0]) is not type(receiver):
        return False
    old, new = arguments[0], arguments[1]
    if not isinstance(new, type(receiver)):
        return False
    matches = receiver.count(old) if old else len(receiver) + 1
    return len(receiver) + matches * max(len(new) - len(old), 0) <= MAX_LENGTH


def _bytes(arguments: list):
    first = arguments[0]
    if isinstance(first, tuple) and all(isinstance(i, int) and 0 <= i < 256 for i in first):
        return bytes(first)
    if isinstance(first, bytes):
        return first
    if isinstance(first, str) and len(arguments) >= 2:
        return apply_codec(first, arguments[1], *arguments[2:3], decoding=False)
    return UNKNOWN


def _small_table(table) -> bool:
    """A translation table that maps characters to at most one character each."""
    if isinstance(table, bytes):
        return len(table) == 256
    return isinstance(table, dict) and all(
        value is None or isinstance(value, int) or (isinstance(value, str) and len(value) <= 1)
        for value in table.values()
    )


def _spec_fits(spec: str) -> bool:
    return all(_small(int(number)) for number in _WIDTH.findall(spec))


def _small(number, limit: int = MAX_WIDTH) -> bool:
    return isinstance(number, int) and -limit <= number <= limit


def _are_ints(*values) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def _same_kind(left, right) -> bool:
    if _are_ints(left, right):
        return True
    return type(left) is type(right) and isinstance(left, (str, bytes, tuple))


def _all_constants(values) -> bool:
    return all(
        isinstance(v, (*_SCALARS, tuple, dict)) and not isinstance(v, Opaque) for v in values
    )
