"""`ntc visualize FILE.py --pid N [--loop I] --out PATH.png`: concrete arguments for a program file,
its accesses for one program, the picture and a summary.

A program file declares only each tensor's ndim, so the shapes come from the suite entry of that
file (the first entry with that path: its `make_args(0, ragged=False)`, call keywords and
arrangement keywords) or from `--shape NAME=AxB`; `--shape` overrides the suite's. `-D NAME=VALUE`
sets an arrangement keyword of the file's module-level `arrangement` (`-D BLOCK_SIZE_M=32`), a
scalar or constexpr tensor (`-D scale=0.5`, `-D is_causal=1`), or a constexpr or meta symbol.
Scalars not given are 1.0. Tensors are random (floats) or zeros (integers) with a fixed seed.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from pathlib import Path

import torch

import compiler.dsl
from compiler.cli.program import module_kernels, parse_defines
from compiler.frontend.dtypes import TORCH_TO_IR, ir_dtype
from compiler.frontend.handle import KernelHandle
from compiler.suite import SUITE, load_program
from compiler.visualize.accesses import KINDS, ProgramAccesses, VisualizeError, program_accesses
from compiler.visualize.render import Picture, render

_IR_TO_TORCH = {ir: t for t, ir in TORCH_TO_IR.items()}


@dataclass(frozen=True)
class Visualized:
    accesses: ProgramAccesses
    picture: Picture

    def summary(self) -> list[str]:
        """Where the PNG went, and one line per tensor: the elements touched."""
        lines = [f"wrote {self.picture.path} ({self.picture.width}x{self.picture.height} px)"]
        for tensor in self.accesses.tensors:
            shape = "x".join(str(s) for s in tensor.shape)
            parts = [tensor.describe(kind, self.accesses.loop) for kind in KINDS]
            touched = "; ".join(p for p in parts if p) or "not touched"
            count = math.prod(tensor.shape)
            elements = f"{count} element{'s' if count != 1 else ''}"
            lines.append(f"  {tensor.name} [{shape}], {elements}: {touched}")
        return lines


def visualize_file(path: str, *, out: str, **options) -> Visualized:
    """`ntc visualize`: the accesses (see `file_accesses` for the options) drawn into `out`."""
    accesses = file_accesses(path, **options)
    return Visualized(accesses, render(accesses, out))


def file_accesses(
    path: str,
    *,
    pid: int,
    loop: int | None = None,
    kernel: str | None = None,
    shapes: list[str] = (),
    defines: list[str] = (),
    dtype: str = "f32",
) -> ProgramAccesses:
    """Program `pid` of a kernel of the program file at `path`, with concrete arguments: the
    suite's for a suite file, `--shape`s (`shapes`), `-D`s (`defines`) and scalars of 1.0."""
    if not Path(path).is_file():
        raise VisualizeError(f"{path}: no such file")
    try:
        default_dtype = _IR_TO_TORCH[ir_dtype(dtype)]
    except (ValueError, KeyError) as error:
        raise VisualizeError(f"--dtype {dtype}: {error}") from None
    values = parse_defines(defines)
    entry = _suite_entry(path)
    module = load_program(path, compiler.dsl)
    handle = _pick_kernel(path, module, entry, values, kernel)
    arguments, keywords = _arguments(path, handle, entry, values, shapes, default_dtype)
    return program_accesses(handle, (), {**arguments, **keywords}, pid=pid, loop=loop)


def _suite_entry(path: str):
    resolved = Path(path).resolve()
    return next((k for k in SUITE.values() if Path(k.path).resolve() == resolved), None)


def _tiling_backend() -> str:
    """A backend whose CPU target keeps tile values: the final SSA stays at tile level, which the
    interpreter runs quickly (any level would give the same accesses)."""
    from compiler.backends.registry import TARGETS

    return next(n for n, t in sorted(TARGETS.items()) if t.capability("value_semantics"))


def _pick_kernel(path, module, entry, values: dict, name: str | None) -> KernelHandle:
    kernels = module_kernels(module, path, _arrangement_options(module, entry, values))
    if name is None and len(kernels) > 1:
        raise VisualizeError(
            f"{path} defines several kernels; add --kernel NAME: {_names(kernels)}"
        )
    if name is not None and name not in kernels:
        raise VisualizeError(f"--kernel {name}: {path} defines {_names(kernels)}")
    handle = kernels[name or next(iter(kernels))]
    handle.backend, handle.device = _tiling_backend(), "cpu"
    return handle


def _names(kernels: dict) -> str:
    return ", ".join(sorted(kernels))


def _arrangement_options(module, entry, values: dict) -> dict:
    """The suite's arrangement keywords, and the -D values naming an arrangement parameter beyond
    the tensors (those are taken out of `values`)."""
    options = dict(entry.arrangement_kwargs) if entry else {}
    if not all(hasattr(module, n) for n in ("arrangement", "tensors")):
        return options  # only `jit` kernels, whose arrangements take no keywords here
    parameters = list(inspect.signature(module.arrangement).parameters)[len(module.tensors) :]
    for name in parameters:
        if name in values:
            options[name] = values.pop(name)
    return options


def _arguments(path, handle, entry, values, shapes, default_dtype) -> tuple[dict, dict]:
    """Argument name -> value for every tensor of the kernel, and the other keywords."""
    tensors = {t.name: t for t in handle.tensors}
    given = {}
    keywords = {}
    if entry is not None:
        made = entry.make_args(0, ragged=False)
        given = dict(zip(tensors, made, strict=False))
        keywords = dict(entry.call_kwargs)
    for name, shape in _parse_shapes(shapes, tensors).items():
        like = given.get(name)
        dtype = (
            like.dtype if isinstance(like, torch.Tensor) else _dtype(tensors[name], default_dtype)
        )
        given[name] = _tensor(shape, dtype, len(given))
    for name in list(values):
        if name in tensors:
            given[name] = values.pop(name)
    missing = [t for t in handle.tensors if t.name not in given and t.name not in keywords]
    for tensor in missing:
        if tensor.constexpr:
            if tensor.value is None:
                raise VisualizeError(
                    f"the constexpr {tensor.name} needs a value: add -D {tensor.name}=VALUE"
                )
            given[tensor.name] = tensor.value
        elif tensor.ndim == 0:
            given[tensor.name] = 1.0
        else:
            example = "x".join(["16"] * tensor.ndim)
            source = "not a suite program" if entry is None else "from the suite"
            raise VisualizeError(
                f"{path} is {source}, so the {tensor.ndim}-D tensor {tensor.name} needs a shape: "
                f"add --shape {tensor.name}={example} (one size per dim)"
            )
    for name in given:
        keywords.pop(name, None)
    keywords |= values
    sizes = {getattr(size, "name", None) for t in handle.tensors for size in t.shape}
    unset = sorted(set(handle.constexpr_names) - set(keywords) - sizes)
    if unset:
        flags = " ".join(f"-D {name}=VALUE" for name in unset)
        raise VisualizeError(f"{handle.kernel_name} needs constexpr value(s): add {flags}")
    return given, keywords


def _parse_shapes(items: list[str], tensors: dict) -> dict[str, tuple[int, ...]]:
    shapes = {}
    for item in items:
        name, _, text = item.partition("=")
        if name not in tensors or tensors[name].ndim == 0:
            valid = ", ".join(n for n, t in tensors.items() if t.ndim and not t.constexpr)
            raise VisualizeError(f"--shape {item}: no tensor {name!r} takes a shape; {valid} do")
        try:
            shape = tuple(int(s) for s in text.lower().split("x"))
        except ValueError:
            shape = ()
        ndim = tensors[name].ndim
        if len(shape) != ndim or min(shape) < 1:
            example = "x".join(["16"] * ndim)
            raise VisualizeError(
                f"--shape {item}: {name} has {ndim} dims; write {ndim} positive sizes, "
                f"e.g. --shape {name}={example}"
            )
        shapes[name] = shape
    return shapes


def _dtype(tensor, default: torch.dtype) -> torch.dtype:
    return _IR_TO_TORCH[ir_dtype(tensor.dtype)] if tensor.dtype else default


def _tensor(shape: tuple[int, ...], dtype: torch.dtype, seed: int) -> torch.Tensor:
    if dtype.is_floating_point:
        generator = torch.Generator().manual_seed(seed)
        return torch.randn(shape, generator=generator).to(dtype)
    return torch.zeros(shape, dtype=dtype)
