"""What the front end reads of a function's source text: its `def`, and the names statements
assign."""

from __future__ import annotations

import ast
import inspect
import textwrap

from compiler.errors import CompileError


def read_definition(func) -> tuple[str, int, ast.FunctionDef]:
    """`func`'s file, first line and parsed `def`."""
    filename = inspect.getsourcefile(func) or "<unknown>"
    try:
        lines, first_line = inspect.getsourcelines(func)
    except (OSError, TypeError) as error:  # typed at a prompt, or made by exec()
        raise CompileError(
            f"the source of {func.__qualname__} is not available ({error}): the compiler reads "
            "the application's text, as NineToothed does; define it in a .py file and import it"
        ) from None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    definitions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not definitions:
        raise CompileError(
            f"{func.__qualname__} is not a `def` function; write the application (and the "
            "helpers it calls) with `def`",
            filename=filename,
            line=first_line,
        )
    return filename, first_line, definitions[0]


def assigned_names(statements: list[ast.stmt]) -> list[str]:
    """Names assigned in `statements`, in order of first assignment (so the IR is deterministic)."""
    names: dict[str, None] = {}
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.setdefault(node.id)
    return list(names)
