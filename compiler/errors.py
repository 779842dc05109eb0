"""Errors a user can cause. Each names the place (file:line, or pass and op) and the fix."""


class CompileError(Exception):
    """A NineToothed program the compiler cannot accept, located in the user's file."""

    def __init__(self, message: str, *, filename: str | None = None, line: int | None = None):
        self.message = message
        self.filename = filename
        self.line = line
        where = f"{filename}:{line}: " if filename and line else ""
        super().__init__(f"{where}{message}")


class VerificationError(Exception):
    """IR that breaks an invariant; names the op and (via the pass manager) the pass."""
