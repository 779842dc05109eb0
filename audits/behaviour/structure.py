"""Structure stability: rewrites that change neither what a kernel computes nor its shapes leave the
schedule's decision (block sizes, warps, stages, grid) as it was.

Each rewrite is made with libcst on the program's text, written to a temporary file:

- `swap`: the operands of every `+` and `*` in the application swapped;
- `reorder`: the first two adjacent independent assignments of the application swapped;
- `unused`: a runtime scalar parameter added in front (to `tensors`, the arrangement, which passes
  it through, and the application, which computes a value from it and never uses the value);
- `used`: the same scalar, and every value the application stores into a parameter gets
  `+ 0.0 * scalar` (the same numbers; more ops, which no pass can fold away);
- `computed`: the same with `+ 0.0 * abs(scalar)`: an op of the math dialect joins the program,
  which a decision keyed on the program's set or chain of ops would notice;
- `constants`: every float literal of the application moved by one part in a million (the same
  shapes, ops and types; other numbers);
- `buffer`: a tensor parameter added last (to `tensors`, the arrangement, which returns it as it
  is, and the application, which never reads it): one more buffer argument, nothing more computed.

One more is made on the kernel the front end built, not on the program (`regridded`): its grid,
the number of programs, written in another form of the same value (`g + 0 * g`), then lowered
again with the same options. Nothing may decide by how the grid is spelled.

The schedule may depend on shapes, types, op kinds and data volume, not on how many ops of a kind
one program happens to have or which constants it uses. Nor may what is computed: every rewrite
but `constants` keeps the final SSA's math, reduction, scan and contraction ops as they were
(`computed` adds its `math.abs`), so a pass that rewrites them only for a program it recognises
(exp as exp2 for one chain of ops) is caught by the rewrite that changes the chain. A rewrite
that does not apply to a program (nothing to swap) or that the program does not take (a store the
scalar cannot join) is skipped.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import libcst as cst

from audits.behaviour.cases import Case

_EXTRA = "audit_unused_scalar"
_EXTRA_TENSOR = "audit_unused_tensor"


class _Swap(cst.CSTTransformer):
    def __init__(self) -> None:
        self.swapped = 0

    def leave_BinaryOperation(self, original, updated: cst.BinaryOperation):
        if not isinstance(updated.operator, cst.Add | cst.Multiply):
            return updated
        sequences = (cst.Tuple, cst.List, cst.SimpleString, cst.FormattedString)
        if isinstance(updated.left, sequences) or isinstance(updated.right, sequences):
            return updated
        self.swapped += 1
        return updated.with_changes(left=updated.right, right=updated.left)


def _names(node: cst.CSTNode) -> set[str]:
    found: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            attribute.value.visit(self)  # `x.shape` reads x, not a name `shape`
            return False

    node.visit(Names())
    return found


def _assignment(statement: cst.BaseStatement) -> tuple[set[str], set[str]] | None:
    """(names written, names read) of a one-target assignment to plain names, else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if not isinstance(target, cst.Name | cst.Tuple):
        return None
    return _names(target), _names(assign.value)


def _reorder(body: list[cst.BaseStatement]) -> list[cst.BaseStatement] | None:
    for at in range(len(body) - 1):
        first, second = _assignment(body[at]), _assignment(body[at + 1])
        if first is None or second is None:
            continue
        (writes1, reads1), (writes2, reads2) = first, second
        if not (writes1 & (reads2 | writes2)) and not (writes2 & reads1):
            return [*body[:at], body[at + 1], body[at], *body[at + 2 :]]
    return None


class _Application(cst.CSTTransformer):
    """Applies `change(function) -> function or None` to the `application` function."""

    def __init__(self, change: Callable[[cst.FunctionDef], cst.FunctionDef | None]) -> None:
        self.change = change
        self.applied = False

    def leave_FunctionDef(self, original, updated: cst.FunctionDef):
        if updated.name.value != "application":
            return updated
        changed = self.change(updated)
        self.applied = changed is not None
        return changed or updated


def _with_body(function: cst.FunctionDef, body) -> cst.FunctionDef:
    return function.with_changes(body=function.body.with_changes(body=body))


def _reordered(function: cst.FunctionDef) -> cst.FunctionDef | None:
    body = _reorder(list(function.body.body))
    return None if body is None else _with_body(function, body)


def _swapped(function: cst.FunctionDef) -> cst.FunctionDef | None:
    swap = _Swap()
    changed = function.visit(swap)
    return changed if swap.swapped else None


class _Unused(cst.CSTTransformer):
    """The scalar `_EXTRA` first in `tensors`, the arrangement (returned as is) and the
    application (which computes `2 * _EXTRA` into a name it never reads; given `joined`, a term
    that is 0.0, adds it to every value it stores into a parameter)."""

    def __init__(self, joined: str | None = None) -> None:
        self.done: set[str] = set()
        self.joined = joined

    def leave_FunctionDef(self, original, updated: cst.FunctionDef):
        name = updated.name.value
        if name not in ("arrangement", "application"):
            return updated
        params = updated.params.with_changes(
            params=[cst.Param(cst.Name(_EXTRA)), *updated.params.params]
        )
        updated = updated.with_changes(params=params)
        if name == "application":
            dead = cst.parse_statement(f"{_EXTRA}_twice = 2.0 * {_EXTRA}\n")
            body = list(updated.body.body)
            if self.joined:
                parameters = {p.name.value for p in updated.params.params} - {_EXTRA}
                body = [_joined(statement, parameters, self.joined) for statement in body]
            self.done.add(name)
            return _with_body(updated, [dead, *body])
        returns = [s for s in updated.body.body if _is_return(s)]
        if not returns:
            return updated
        last = returns[-1].body[0]
        value = last.value
        items = [cst.StarredElement(value)]
        if isinstance(value, cst.Tuple):
            items = list(value.elements)
        new_return = last.with_changes(value=cst.Tuple([cst.Element(cst.Name(_EXTRA)), *items]))
        self.done.add(name)
        return _returning(updated, returns[-1], new_return)

    def leave_Assign(self, original, updated: cst.Assign):
        value = _tensors_tuple(updated)
        if value is None:
            return updated
        first = value.elements[0].value
        if not isinstance(first, cst.Call):
            return updated
        scalar = cst.Call(first.func, [cst.Arg(cst.Integer("0"))])
        self.done.add("tensors")
        elements = [cst.Element(scalar), *value.elements]
        return updated.with_changes(value=value.with_changes(elements=elements))


class _UnusedTensor(cst.CSTTransformer):
    """`_EXTRA_TENSOR` last among the tensors: in `tensors` (a one-dimensional tensor made as the
    first one is), the arrangement's positional parameters and results, and the application's
    parameters. Only where each of those lines up one to one (else `done` stays incomplete)."""

    def __init__(self) -> None:
        self.done: set[str] = set()
        self.count: int | None = None  # positional arrangement parameters = entries of `tensors`

    def leave_FunctionDef(self, original, updated: cst.FunctionDef):
        name = updated.name.value
        params = list(updated.params.params)
        if name == "application":
            params.append(cst.Param(cst.Name(_EXTRA_TENSOR)))
            self.done.add(name)
            return updated.with_changes(params=updated.params.with_changes(params=params))
        if name != "arrangement" or updated.params.star_arg not in (cst.MaybeSentinel.DEFAULT,):
            return updated
        positional = [p for p in params if p.default is None]
        returns = [s for s in updated.body.body if _is_return(s)]
        value = returns[-1].body[0].value if returns else None
        if not isinstance(value, cst.Tuple) or len(value.elements) != len(positional):
            return updated
        self.count = len(positional)
        params.insert(len(positional), cst.Param(cst.Name(_EXTRA_TENSOR)))
        last = returns[-1].body[0]
        elements = [*value.elements, cst.Element(cst.Name(_EXTRA_TENSOR))]
        new_return = last.with_changes(value=value.with_changes(elements=elements))
        self.done.add(name)
        updated = updated.with_changes(params=updated.params.with_changes(params=params))
        return _returning(updated, returns[-1], new_return)

    def leave_Assign(self, original, updated: cst.Assign):
        value = _tensors_tuple(updated)
        if value is None:
            return updated
        if not all(isinstance(e.value, cst.Call) for e in value.elements):
            return updated
        tensor = cst.Call(value.elements[0].value.func, [cst.Arg(cst.Integer("1"))])
        self.done.add(f"tensors:{len(value.elements)}")
        elements = [*value.elements, cst.Element(tensor)]
        return updated.with_changes(value=value.with_changes(elements=elements))


def _returning(function: cst.FunctionDef, old, new_return) -> cst.FunctionDef:
    """`function` with the return statement `old` returning `new_return`'s value instead."""
    body = [s.with_changes(body=[new_return]) if s is old else s for s in function.body.body]
    return _with_body(function, body)


def _tensors_tuple(assign: cst.Assign) -> cst.Tuple | None:
    """The value of `tensors = (...)`, a tuple of one entry or more; None for other assignments."""
    target = assign.targets[0].target if len(assign.targets) == 1 else None
    if not (isinstance(target, cst.Name) and target.value == "tensors"):
        return None
    value = assign.value
    return value if isinstance(value, cst.Tuple) and value.elements else None


def _joined(statement: cst.BaseStatement, parameters: set[str], term: str) -> cst.BaseStatement:
    """`p = value` for a parameter p becomes `p = value + term`, at any depth."""

    class Join(cst.CSTTransformer):
        def leave_Assign(self, original, updated: cst.Assign):
            targets = [t.target for t in updated.targets]
            if not all(isinstance(t, cst.Name) and t.value in parameters for t in targets):
                return updated
            zero = cst.parse_expression(term)
            value = updated.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            joined = cst.BinaryOperation(value, cst.Add(), zero)
            return updated.with_changes(value=joined)

    return statement.visit(Join())


class _Constants(cst.CSTTransformer):
    """Every float literal times (1 + 1e-6)."""

    def __init__(self) -> None:
        self.nudged = 0

    def leave_Float(self, original, updated: cst.Float) -> cst.Float:
        self.nudged += 1
        return updated.with_changes(value=repr(float(updated.value) * (1 + 1e-6)))


def _nudged(function: cst.FunctionDef) -> cst.FunctionDef | None:
    constants = _Constants()
    changed = function.visit(constants)
    return changed if constants.nudged else None


def _is_return(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Return)
        and statement.body[0].value is not None
    )


def rewrite(case: Case, kind: str, directory: Path) -> Case | None:
    """`case` with its program rewritten by `kind` into `directory`, or None where `kind` does not
    apply to it."""
    module = cst.parse_module(case.path.read_text())
    if kind in ("unused", "used", "computed"):
        joined = {"used": f"0.0 * {_EXTRA}", "computed": f"0.0 * abs({_EXTRA})"}.get(kind)
        transformer = _Unused(joined)
        changed = module.visit(transformer)
        if transformer.done != {"arrangement", "application", "tensors"}:
            return None
        make_args = case.make_args
        case = dataclasses.replace(case, make_args=lambda: [1.5, *make_args()])
    elif kind == "buffer":
        transformer = _UnusedTensor()
        changed = module.visit(transformer)
        wanted = {"arrangement", "application", f"tensors:{transformer.count}"}
        if transformer.done != wanted:
            return None
        make_args = case.make_args
        case = dataclasses.replace(case, make_args=lambda: [*make_args(), _unread_tensor()])
    else:
        transformer = _Application({"swap": _swapped, "reorder": _reordered}.get(kind, _nudged))
        changed = module.visit(transformer)
        if not transformer.applied:
            return None
    path = directory / f"{kind}_{case.path.name}"
    path.write_text(changed.code)
    return dataclasses.replace(case, path=path)


REWRITES = ("swap", "reorder", "unused", "used", "computed", "constants", "buffer")
# The dialects of what a kernel computes, as opposed to how it moves and indexes data.
_COMPUTING = ("math.", "reduce.", "scan.", "linalg.")


def computation_difference(kind: str, original, other) -> str | None:
    """How the rewrite `kind` changed the final SSA's computing ops, or None: none may be lost and
    none gained but the `math.abs` that `computed` adds (`constants` is not judged: other
    numbers may fold otherwise)."""
    if kind == "constants":
        return None
    before, after = (_computing(artifact.trace[-1]["op_counts"]) for artifact in (original, other))
    lost = {op: n - after.get(op, 0) for op, n in before.items() if after.get(op, 0) < n}
    gained = {
        op: n - before.get(op, 0)
        for op, n in after.items()
        if n > before.get(op, 0) and not (kind == "computed" and op == "math.abs")
    }
    if not lost and not gained:
        return None
    return f"lost {lost or 'nothing'}, gained {gained or 'nothing'}"


def _computing(counts: dict[str, int]) -> dict[str, int]:
    return {op: n for op, n in counts.items() if op.startswith(_COMPUTING)}


def _unread_tensor():
    import torch

    return torch.zeros(4)


def regridded(artifact):
    """`artifact`'s kernel lowered again from its initial IR, the same options, its grid written
    `g + 0 * g`: every count of names and operators in it doubled, its value the same."""
    from compiler.backends.lowering import lower_unified_ssa_artifact
    from compiler.ir import parse_kernel

    kernel = parse_kernel(artifact.initial_ssa)
    grid = kernel.attrs["grid"]
    kernel.attrs["grid"] = f"({grid}) + 0 * ({grid})"
    options = dict(artifact.lowering.get("options") or {})
    return lower_unified_ssa_artifact(
        kernel, artifact.backend, device=artifact.device, options=options
    )


def decision(artifact) -> tuple:
    """What the schedule decided: the meta symbols' values in order (their generated names depend
    on how many the process made before), warps, stages and the grid over those values."""
    grid = artifact.grid
    for number, name in enumerate(artifact.schedule):
        grid = re.sub(rf"\b{re.escape(name)}\b", f"<meta {number}>", grid)
    values = [artifact.schedule[name] for name in artifact.schedule]
    return (values, artifact.num_warps, artifact.num_stages, grid)
