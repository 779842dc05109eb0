"""Runs a pipeline: verify after every pass and record a trace entry with the IR after it."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.errors import VerificationError
from compiler.ir import Kernel, print_kernel, verify
from compiler.passes.base import Pass, PassContext, PassError

_EXCERPT_LINES = 4


@dataclass(frozen=True)
class TraceEntry:
    pass_name: str
    category: str
    options: dict
    ir: str
    op_counts: dict[str, int]
    op_count_delta: dict[str, int]
    seconds: float
    changed: bool
    verified: bool
    remarks: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "pass": self.pass_name,
            "category": self.category,
            "options": self.options,
            "ir": self.ir,
            "op_counts": self.op_counts,
            "op_count_delta": self.op_count_delta,
            "seconds": self.seconds,
            "changed": self.changed,
            "verified": self.verified,
            "remarks": list(self.remarks),
        }


def trace_to_json(entries: Sequence[TraceEntry]) -> str:
    return json.dumps([entry.to_dict() for entry in entries], indent=2)


class PassManager:
    def __init__(
        self, passes: Sequence[Pass], ctx: PassContext | None = None, *, verify: bool = True
    ):
        self.passes = list(passes)
        self.ctx = ctx if ctx is not None else PassContext()
        self.verify = verify

    def run(self, kernel: Kernel, *, text: str | None = None) -> list[TraceEntry]:
        """Run every pass on `kernel` in place; one trace entry per pass. `text`: the kernel's
        printed IR, when the caller has it already."""
        if self.verify and self.passes:
            _verify(kernel, f"input of {self.passes[0].name}")
        text, counts = text if text is not None else print_kernel(kernel), kernel.op_counts()
        trace = []
        for pass_ in self.passes:
            self.ctx.remarks.clear()
            start = time.perf_counter()
            if not pass_.applies(kernel, self.ctx):  # not run: the IR stands as it was verified
                seconds = time.perf_counter() - start
                trace.append(self._entry(pass_, text, dict(counts), {}, seconds, changed=False))
                continue
            claimed = pass_.run(kernel, self.ctx)
            seconds = time.perf_counter() - start
            after = print_kernel(kernel)
            changed = after != text
            # The same text is the same IR, verified already; so is the same text but the
            # kernel's attributes, which the verifier does not read.
            if self.verify and changed and _verified_part(after) != _verified_part(text):
                _verify(kernel, pass_.name)
            after_counts = kernel.op_counts() if changed else dict(counts)
            if claimed is not changed:
                raise PassError(
                    f"{pass_.name}: returned changed={claimed!r} but the printed IR "
                    f"{'changed' if changed else 'is unchanged'}; run() must return whether it "
                    "changed the IR"
                )
            delta = {
                name: after_counts.get(name, 0) - counts.get(name, 0)
                for name in sorted(set(counts) | set(after_counts))
                if after_counts.get(name, 0) != counts.get(name, 0)
            }
            trace.append(self._entry(pass_, after, after_counts, delta, seconds, changed))
            text, counts = after, after_counts
        return trace

    def _entry(
        self, pass_: Pass, ir: str, counts: dict, delta: dict, seconds: float, changed: bool
    ) -> TraceEntry:
        return TraceEntry(
            pass_.name,
            pass_.category,
            pass_.options(),
            ir,
            counts,
            delta,
            seconds,
            changed,
            self.verify,
            tuple(self.ctx.remarks),
        )


def _verified_part(text: str) -> tuple[str, str]:
    """What the verifier reads of printed IR: the kernel's name and arguments, and its body."""
    header, _, body = text.partition("\n")
    return header.partition(")")[0], body


def _verify(kernel: Kernel, stage: str) -> None:
    try:
        verify(kernel)
    except VerificationError as error:
        excerpt = _excerpt(print_kernel(kernel), str(error))
        raise VerificationError(f"{stage}: {error}\n{excerpt}") from error


def _excerpt(text: str, message: str) -> str:
    """The printed IR around the op the verifier names (`op #N`, counted in program order)."""
    lines = text.splitlines()
    op_lines = [
        i
        for i, line in enumerate(lines)
        if i and line.strip() not in ("}", "} {") and not line.lstrip().startswith("^(")
    ]
    match = re.search(r"op #(\d+)", message)
    number = int(match[1]) if match else 0
    if not 1 <= number <= len(op_lines):
        return "\n".join(lines[: 2 * _EXCERPT_LINES])
    at = op_lines[number - 1]
    window = range(max(0, at - _EXCERPT_LINES), min(len(lines), at + _EXCERPT_LINES + 1))
    return "\n".join((">> " if i == at else "   ") + lines[i] for i in window)
