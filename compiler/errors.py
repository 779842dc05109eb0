"""Errors a user can cause. Each names the place (file:line, or pass and op) and the fix."""

from __future__ import annotations


class CompileError(Exception):
    """A NineToothed program the compiler cannot accept, located in the user's file."""

    def __init__(
        self,
        message: str,
        *,
        filename: str | None = None,
        line: int | None = None,
        callers: tuple[str, ...] = (),
    ):
        self.message = message
        self.filename = filename
        self.line = line
        self.callers = callers  # "file:line" of each call that inlined the place, innermost first
        where = f"{filename}:{line}: " if filename and line else ""
        chain = "".join(f"\n  called from {caller}" for caller in callers)
        super().__init__(f"{where}{message}{chain}")

    def called_from(self, filename: str, line: int) -> CompileError:
        """This error, raised in a function inlined by a call at `filename:line`."""
        caller = f"{filename}:{line}"
        return CompileError(
            self.message, filename=self.filename, line=self.line, callers=(*self.callers, caller)
        )


class VerificationError(Exception):
    """IR that breaks an invariant; names the op and (via the pass manager) the pass."""
