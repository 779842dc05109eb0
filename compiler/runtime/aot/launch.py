"""The C launch function of an ahead-of-time kernel.

Outside, NineToothed's calling convention: `NineToothedResult launch_<kernel>(NineToothedStream
stream, NineToothedTensor <param>, ...)`, one tensor per application parameter (`c/ninetoothed.h`).
Inside, the kernel's own arguments, read from those tensors by the argument contract every backend
shares: a buffer `<param>` is `<param>.data`, `<param>_size_<d>` and `<param>_stride_<d>` are
`<param>.shape[d]` and `<param>.strides[d]`, a scalar `<param>` is the value `<param>.data` points
at, in the type the program declares (converted where the target takes another). Before the kernel
runs, the launch function checks what the Python launcher checks (a tensor of another size than
the one declared, a tensor whose offsets pass the kernel's index width, a written tensor with more
tiles than the grid has programs) and returns a nonzero result with a message
(`launch_<kernel>_error()`) instead of running wrongly. How the kernel is then called is the
backend form's part (`<backend>_form.py`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from compiler.backends.artifact import Artifact
from compiler.backends.c_names import C_RESERVED
from compiler.errors import CompileError
from compiler.frontend.squeezes import FIX

# A launch's result when a check refused it, and when no CUDA driver could be opened (CUDA's own
# error codes are positive).
REFUSED = -1
NO_DRIVER = -2

# The C type of each kernel argument's local, as the kernel takes it: halves as their 16 bits.
C_TYPES = {
    "i1": "bool",
    **{f"i{n}": f"int{n}_t" for n in (8, 16, 32, 64)},
    **{f"u{n}": f"uint{n}_t" for n in (8, 16, 32, 64)},
    "f16": "uint16_t",
    "bf16": "uint16_t",
    "f32": "float",
    "f64": "double",
}
# What a scalar parameter's `data` points at: its own type, but a float32 as a double
# (NineToothed's convention: a Python float crosses as a C double).
PASSED_TYPES = {**C_TYPES, "f32": "double"}

_CONTRACT = re.compile(r"(?P<param>.+)_(?P<field>size|stride)_(?P<dim>\d+)")
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
C_DIR = Path(__file__).parent / "c"  # ninetoothed.h, and the helpers each launch includes


@dataclass(frozen=True)
class Parameter:
    """One parameter of the launch function: an application parameter."""

    name: str
    kind: str  # "tensor", "scalar", or "constexpr" (compiled in: what is passed is not read)
    dtype: str  # the IR element type; "" for a constexpr
    ndim: int  # a tensor's dims
    value: object = None  # a constexpr's compiled value, where it has one
    sizes: tuple[int | None, ...] = ()  # a tensor's declared sizes (None: open)

    def to_dict(self) -> dict:
        described = {"name": self.name, "kind": self.kind, "dtype": self.dtype, "ndim": self.ndim}
        return described | ({"value": self.value} if self.kind == "constexpr" else {})


@dataclass(frozen=True)
class Argument:
    """One kernel argument as the launch function holds it."""

    name: str  # the kernel's argument name
    kind: str  # "buffer", "index" or "scalar"
    local: str  # the C local holding it
    ctype: str  # the local's C type
    value: str  # the C expression it is read from
    param: str  # the C parameter it comes from
    ndim: int  # that parameter's dims (0 for a scalar)


def launch_function(artifact: Artifact, parameters: list[Parameter], call: str) -> str:
    """The C++ text of `launch_<kernel>` and its error function, after the kernel's form:
    `call` is the form's statements that run the kernel on the locals (`arguments(...)`) and
    `ntc_grid` programs, returning 0 or an error code."""
    name = artifact.kernel_name
    held = arguments(artifact, parameters)
    locals_ = {a.name: a.local for a in held}
    grid = _c_expression(artifact.grid, artifact, locals_)
    body = [f"  {a.ctype} {a.local} = {a.value};  // {a.name}" for a in held]
    body.append("  bool ntc_zero = false;")
    body.append(f"  int64_t ntc_grid = {grid};")
    body += _declared_size_checks(artifact, parameters)
    body += _width_checks(artifact, parameters)
    body += _coverage_checks(artifact, locals_)
    body += _unit_dim_checks(artifact, locals_)
    body.append(
        _refuse(
            "ntc_grid > INT64_C(2147483647)",
            f"@{name} needs %lld programs, past the 2147483647 a launch may have; use larger tiles",
            "(long long)ntc_grid",
        )
    )
    body.append(
        _refuse(
            "ntc_zero",
            f"@{name}: its grid {artifact.grid} divides by zero for these sizes",
        )
    )
    body.append("  if (ntc_grid == 0) return 0;  // nothing to run")
    body += [f"  {line}" for line in call.strip().splitlines()]
    return (
        f'extern "C" const char* launch_{name}_error(void) {{ return ntc_message; }}\n\n'
        f'extern "C" {signature(name, parameters)} {{\n' + "\n".join(body) + "\n}\n"
    )


def signature(kernel_name: str, parameters: list[Parameter]) -> str:
    """`NineToothedResult launch_<kernel>(NineToothedStream stream, NineToothedTensor ...)`."""
    params = ["NineToothedStream stream"]
    params += [f"NineToothedTensor {p}" for p in c_parameters(parameters)]
    return f"NineToothedResult launch_{kernel_name}({', '.join(params)})"


def header(kernel_name: str, parameters: list[Parameter]) -> str:
    """`<kernel>.h`: the launch function's and the error function's declarations."""
    return declarations(kernel_name, signature(kernel_name, parameters))


def declarations(kernel_name: str, signature: str) -> str:
    """A header declaring the launch function `signature` and `launch_<kernel>_error`."""
    guard = f"NINETOOTHED_{kernel_name.upper()}_H"
    return (
        f"#ifndef {guard}\n#define {guard}\n\n"
        '#include "ninetoothed.h"\n\n'
        '#ifdef __cplusplus\nextern "C" {\n#endif\n\n'
        f"// 0 on success; otherwise launch_{kernel_name}_error() says why.\n"
        f"{signature};\n"
        f"const char* launch_{kernel_name}_error(void);\n\n"
        "#ifdef __cplusplus\n}\n#endif\n\n#endif\n"
    )


def c_parameters(parameters: list[Parameter]) -> list[str]:
    """The C names of the parameters: their own, unless C reserves it or the launch function's
    own names (`stream`, `ntc_*`) would clash."""
    names = []
    for p in parameters:
        name = p.name
        while name in C_RESERVED or name == "stream" or name.startswith("ntc_") or name in names:
            name += "_"
        names.append(name)
    return names


def arguments(artifact: Artifact, parameters: list[Parameter]) -> list[Argument]:
    """Each kernel argument, read from the launch function's parameters by the contract."""
    by_name = dict(zip((p.name for p in parameters), parameters, strict=True))
    c_names = dict(zip((p.name for p in parameters), c_parameters(parameters), strict=True))
    index_type = "int64_t" if artifact.index_bits >= 64 else f"int{artifact.index_bits}_t"
    held = []
    for position, (name, kind) in enumerate(artifact.args):
        local = f"ntc_a{position}"
        contract = _CONTRACT.fullmatch(name)
        owner = by_name.get(name)
        if kind == "buffer" and owner is not None and owner.kind == "tensor":
            value = f"{c_names[name]}.data"
            held.append(Argument(name, "buffer", local, "void*", value, c_names[name], owner.ndim))
        elif owner is not None and owner.kind == "scalar" and kind in C_TYPES:
            value = _scalar(artifact, name, owner.dtype, kind, c_names[name])
            held.append(Argument(name, "scalar", local, C_TYPES[kind], value, c_names[name], 0))
        elif kind == "index" and contract and contract["param"] in by_name:
            param = contract["param"]
            field = "shape" if contract["field"] == "size" else "strides"
            value = f"({index_type}){c_names[param]}.{field}[{contract['dim']}]"
            ndim = by_name[param].ndim
            held.append(Argument(name, "index", local, index_type, value, c_names[param], ndim))
        else:
            raise CompileError(
                f"@{artifact.kernel_name}: its argument {name!r} ({kind}) is none that an "
                "ahead-of-time launch can read from NineToothed tensors (a tensor's data, sizes "
                "and strides, or a scalar); jagged tensors are compiled for Python callers only "
                "(caller='torch')"
            )
    return held


def _scalar(artifact: Artifact, name: str, passed: str, taken: str, param: str) -> str:
    """The C expression of a scalar the caller passes as `passed` (what its `data` points at) and
    the kernel takes as `taken` (a target may take it in another type)."""
    data = f"{param}.data"
    if passed in ("f16", "bf16") and taken != passed:
        brain = "true" if passed == "bf16" else "false"
        return f"({C_TYPES[taken]})ntc_half_value(*(const uint16_t*){data}, {brain})"
    if taken in ("f16", "bf16") and taken != passed:
        raise CompileError(
            f"@{artifact.kernel_name}: its scalar {name!r} is passed as {passed} and taken as "
            f"{taken}, which the launch cannot convert; declare it {taken}"
        )
    return f"({C_TYPES[taken]})(*(const {PASSED_TYPES[passed]}*){data})"


def _declared_size_checks(artifact: Artifact, parameters: list[Parameter]) -> list[str]:
    """A size the Tensor declares is compiled into the kernel: another would be indexed past."""
    c_names = dict(zip((p.name for p in parameters), c_parameters(parameters), strict=True))
    return [
        _refuse(
            f"{c_names[p.name]}.shape[{d}] != {size}ULL",
            f"@{artifact.kernel_name}: {p.name} has size %llu in dim {d}, and the kernel is "
            f"built for {size}; pass a tensor of that size, or build it with the size open",
            f"(unsigned long long){c_names[p.name]}.shape[{d}]",
        )
        for p in parameters
        for d, size in enumerate(p.sizes)
        if size is not None
    ]


def overflow_terms(names: list[str], ndims: list[int], bits: int = 32) -> tuple[str, ...]:
    """C conditions over NineToothedTensors `names` of `ndims` dims, three per dim (its size past
    the largest `bits`-bit index, its stride past it either way); any one holding is a tensor a
    `bits`-bit form cannot index."""
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return tuple(
        term
        for name, ndim in zip(names, ndims, strict=True)
        for d in range(ndim)
        for term in (
            f"{name}.shape[{d}] > {high}ULL",
            f"{name}.strides[{d}] > {high}LL",
            f"{name}.strides[{d}] < {low}LL",
        )
    )


def _width_checks(artifact: Artifact, parameters: list[Parameter]) -> list[str]:
    """Where the kernel indexes in fewer than 64 bits: every size and stride, and every tensor's
    reach, must fit (as compiler/runtime/index_width.py checks a Python launch)."""
    if artifact.index_bits >= 64:
        return []
    limit = 2 ** (artifact.index_bits - 1) - 1
    pad = max((v for v in artifact.schedule.values() if isinstance(v, int)), default=1) - 1
    c_names = dict(zip((p.name for p in parameters), c_parameters(parameters), strict=True))
    fix = "split the tensor, or compile it for a target that indexes in 64 bits"
    where = f"@{artifact.kernel_name} indexes in {artifact.index_bits} bits"
    lines = []
    for p in (p for p in parameters if p.kind == "tensor"):
        t = c_names[p.name]
        terms = overflow_terms([t], [p.ndim], artifact.index_bits)
        for d in range(p.ndim):
            too_far = " || ".join(terms[3 * d : 3 * d + 3])
            lines.append(_refuse(too_far, f"{where}, and {p.name}'s dim {d} passes it; {fix}"))
        lines.append(
            _refuse(
                f"ntc_reach({t}, {p.ndim}, {pad}) > {limit}",
                f"{where}, and {p.name}'s element offsets pass it; {fix}",
            )
        )
    return lines


def _coverage_checks(artifact: Artifact, locals_: dict[str, str]) -> list[str]:
    """Each written tensor has a program per outermost tile (compiler/runtime/coverage.py); an
    ahead-of-time kernel cannot be lowered again for more blocks, so it refuses."""
    lines = []
    for position, (tensor, expression) in enumerate(artifact.written_tiles):
        tiles = f"ntc_tiles{position}"
        lines.append(f"  int64_t {tiles} = {_c_expression(expression, artifact, locals_)};")
        lines.append(
            _refuse(
                f"{tiles} > ntc_grid",
                f"@{artifact.kernel_name}: {tensor} has %lld outermost tiles and the grid %lld "
                "programs (the first tensor parameter's tiles), so part of it would go unwritten; "
                "arrange the tensors so the first one has as many tiles",
                f"(long long){tiles}, (long long)ntc_grid",
            )
        )
    return lines


def _unit_dim_checks(artifact: Artifact, locals_: dict[str, str]) -> list[str]:
    """Each dimension an arrangement squeezes has at most one element (runtime/unit_dims.py)."""
    lines = []
    for tensor, expression in artifact.unit_dims:
        size = _c_expression(expression, artifact, locals_)
        message = f"@{artifact.kernel_name}: {tensor}'s arrangement squeezes a dimension that has "
        lines.append(_refuse(f"{size} > 1", f"{message}%lld elements; {FIX}", f"(long long){size}"))
    return lines


def _refuse(condition: str, message: str, values: str = "") -> str:
    """Where `condition` holds, the launch returns REFUSED with `message` (a printf format over
    `values` where they are given)."""
    text = message.replace("\\", "\\\\").replace('"', '\\"')
    text = f'"{text}", {values}' if values else f'"{text.replace("%", "%%")}"'
    return (
        f"  if ({condition}) {{\n"
        f"    snprintf(ntc_message, sizeof ntc_message, {text});\n"
        f"    return {REFUSED};\n  }}"
    )


def _c_expression(expression: str, artifact: Artifact, locals_: dict[str, str]) -> str:
    """A grid expression (names, ints, + - * // %) in C over 64-bit locals; a meta symbol is its
    scheduled value. `//` and `%` floor as Python's do."""

    def spell(node: ast.AST) -> str:
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return f"({spell(node.left)} {_OPERATORS[type(node.op)]} {spell(node.right)})"
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv | ast.Mod):
            helper = "ntc_floordiv" if isinstance(node.op, ast.FloorDiv) else "ntc_mod"
            return f"{helper}({spell(node.left)}, {spell(node.right)}, &ntc_zero)"
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return f"INT64_C({node.value})"
        if isinstance(node, ast.Name) and node.id in locals_:
            return f"(int64_t){locals_[node.id]}"
        if isinstance(node, ast.Name) and isinstance(artifact.schedule.get(node.id), int):
            return f"INT64_C({artifact.schedule[node.id]})"
        raise CompileError(
            f"@{artifact.kernel_name}: {ast.unparse(node)!r} in its grid {expression!r} is not "
            "a kernel argument or a scheduled value; an ahead-of-time launch computes the grid "
            "from the arguments only"
        )

    return spell(ast.parse(expression.strip(), mode="eval").body)
