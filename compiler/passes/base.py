"""The pass interface: a small frozen dataclass with a name, a category, a description and options.

Options are the dataclass fields; their annotated types (int, float, bool, str) say how the text
of a pipeline string such as `ssa.select_schedule{cap=32}` is read.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar

from compiler.ir import Kernel

CATEGORIES = ("hardware-independent", "hardware-dependent", "backend-specific")
OPTION_TYPES = (int, float, bool, str)


class PassError(Exception):
    """A pass cannot do its job; the message names the pass, the op or option, and the fix."""


@dataclass
class PassContext:
    """What a pass may consult besides the IR: the backend's Target record, caller options and,
    for measured autotuning, a `Tuner` (`hardware_dependent/select_schedule/autotune.py`).
    `remark` records a note about a decision (why a schedule was chosen) in the pass's trace
    entry."""

    target: Any = None
    options: dict = field(default_factory=dict)
    tuner: Any = None
    remarks: list[str] = field(default_factory=list)

    def remark(self, text: str) -> None:
        self.remarks.append(text)

    def require_target(self, pass_name: str) -> Any:
        if self.target is None:
            raise PassError(f"{pass_name}: needs a target; set PassContext.target to a Target")
        return self.target


@dataclass(frozen=True)
class Pass:
    name: ClassVar[str]
    category: ClassVar[str]
    description: ClassVar[str]

    def run(self, kernel: Kernel, ctx: PassContext) -> bool:
        """Transform `kernel` in place; return whether its printed IR changed."""
        raise NotImplementedError(f"{type(self).__name__} must implement run(kernel, ctx)")

    def applies(self, kernel: Kernel, ctx: PassContext) -> bool:
        """Whether `run` may change `kernel`. False only where that is known without changing it
        (the target's capabilities, the kernel's attributes, which ops it has): the pass manager
        then records the IR as it stands without running, printing or verifying anything."""
        return True

    @classmethod
    def option_types(cls) -> dict[str, type]:
        hints = typing.get_type_hints(cls)
        return {f.name: hints[f.name] for f in dataclasses.fields(cls)}

    @classmethod
    def from_options(cls, options: dict[str, str]) -> Pass:
        """The pass configured from option texts, each read by its field's type."""
        if not options:  # the common case: skip `typing.get_type_hints`, which is slow
            return cls()
        types = cls.option_types()
        for key in options:
            if key not in types:
                valid = ", ".join(types) or "none"
                raise PassError(f"{cls.name}: unknown option {key!r}; valid options: {valid}")
        return cls(**{k: read_option(cls.name, k, v, types[k]) for k, v in options.items()})

    def options(self) -> dict[str, object]:
        """Every option with its value, as recorded in the trace."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __str__(self) -> str:
        """The pass in pipeline-string form, listing the options that differ from the default."""
        defaults = {f.name: f.default for f in dataclasses.fields(self)}
        given = [
            f"{k}={format_option(v)}"
            for k, v in self.options().items()
            if k not in defaults or defaults[k] != v
        ]
        return self.name + ("{" + " ".join(given) + "}" if given else "")


def read_option(pass_name: str, key: str, text: str, type_: type) -> object:
    if type_ is str:
        return json.loads(text) if text.startswith('"') else text
    if type_ is bool:
        if text not in ("true", "false"):
            raise PassError(f"{pass_name}: option {key} expects true or false, got {text!r}")
        return text == "true"
    try:
        return type_(text)
    except ValueError:
        raise PassError(
            f"{pass_name}: option {key} expects {type_.__name__}, got {text!r}"
        ) from None


def format_option(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and not re.fullmatch(r'[^\s,{}"=]+', value):
        return json.dumps(value)
    return str(value)
