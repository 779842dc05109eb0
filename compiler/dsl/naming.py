"""NineToothed's naming scheme for generated parameters (`ninetoothed.naming`).

A role is a prefix `ninetoothed_<role>_prefix_` in front of a name: `constexpr` (a compile-time
value), `meta` (a value the tuner chooses, so also a constexpr) and `next_power_of_2` (a size
rounded up for a block). Prefixes stack, outermost first, and `remove_prefixes` takes them all off.
"""

from __future__ import annotations

import re

CONSTEXPR = "constexpr"
META = "meta"
NEXT_POWER_OF_2 = "next_power_of_2"
# A role is a word without a doubled underscore, so stacked prefixes split where each one ends.
_PREFIX = re.compile(r"ninetoothed_((?:[a-z0-9]|_(?!_))+?)_prefix_")


def auto_generate(name: str) -> str:
    """The name of something the compiler generates, apart from the user's names."""
    return f"ninetoothed_{name}"


def make_constexpr(name: str) -> str:
    return _prefixed(CONSTEXPR, name)


def make_meta(name: str) -> str:
    return _prefixed(META, name)


def make_next_power_of_2(name: str) -> str:
    return _prefixed(NEXT_POWER_OF_2, name)


def is_constexpr(name: str) -> bool:
    return CONSTEXPR in roles(name) or is_meta(name)


def is_meta(name: str) -> bool:
    return META in roles(name)


def is_next_power_of_2(name: str) -> bool:
    return NEXT_POWER_OF_2 in roles(name)


def remove_prefixes(name: str) -> str:
    return _PREFIX.sub("", name)


def roles(name: str) -> set[str]:
    """Every role a name's prefixes give it."""
    return set(_PREFIX.findall(name))


def _prefixed(role: str, name: str) -> str:
    return f"ninetoothed_{role}_prefix_{name}"
