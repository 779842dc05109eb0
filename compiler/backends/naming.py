"""Readable, unique names for the values of an emitted kernel.

Kernel arguments keep their IR names (made safe for the target language); every other value is
`v<N>`, numbered in order of definition, skipping names already taken.
"""

from __future__ import annotations


class Namer:
    def __init__(self, reserved: frozenset[str]):
        self.taken: set[str] = set(reserved)
        self.counter = 0

    def claim(self, wanted: str) -> str:
        """`wanted`, or the nearest free variant of it (a leading `_`, trailing `_`s)."""
        name = f"_{wanted}" if wanted[:1].isdigit() else wanted
        while name in self.taken:
            name += "_"
        self.taken.add(name)
        return name

    def fresh(self) -> str:
        while f"v{self.counter}" in self.taken:
            self.counter += 1
        return self.claim(f"v{self.counter}")
