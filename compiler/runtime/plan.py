"""A launch plan: what launching an artifact on one signature of arguments needs, worked out once.

Which form runs (the 64-bit index form where offsets pass the width, one lowered for more blocks
where the grid leaves tiles unwritten, one specialized to unit strides and aligned buffers), the
checks of every binding, the grid, and the backend's entry with its fixed arguments packed: all of
it follows from the arguments' dtypes, devices, sizes, strides, alignment and the constexpr and
meta values, which a plan is made for (`KernelHandle` keys its plans by them). A call on a plan
then does only what changes from call to call: it reads the buffers' data pointers and the scalar
arguments, checks that no buffer it writes shares memory with another argument (cheaply: only
tensors on one storage are compared), and calls the entry.

The index arguments (sizes and strides) are part of the signature: a plan runs with the values it
was made with.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence

import torch

from compiler.backends.artifact import Artifact
from compiler.runtime.bindings import TORCH_DTYPES, LaunchError, check_range, integer_numbers
from compiler.runtime.coverage import covering
from compiler.runtime.index_width import fitting
from compiler.runtime.overlap import warn_overlaps
from compiler.runtime.specialization import specialized
from compiler.runtime.unit_dims import check_unit_dims

IR_TO_TORCH = {ir: torch_dtype for torch_dtype, ir in TORCH_DTYPES.items()}

# What a backend's launcher (`prepare(artifact, bindings)`) makes of an artifact and the bindings
# of a plan's first call: a function that runs the kernel on the values of its arguments, in
# `artifact.args` order. A launcher may instead have only `launch(artifact, bindings)`, which
# checks and runs one call (the simplest a new backend can start with): each run then calls it.
Runner = Callable[[Sequence[object]], None]


class LaunchPlan:
    def __init__(self, artifact: Artifact, bindings: Mapping[str, object]):
        """Plan `artifact` for calls like `bindings` (argument name -> tensor or number); raises
        LaunchError where they do not fit it."""
        launcher = _launcher(artifact.backend)
        check_unit_dims(artifact, bindings)
        self.artifact = specialized(fitting(covering(artifact, bindings), bindings), bindings)
        artifact = self.artifact
        _check_constexpr_sizes(artifact, bindings)
        self.names = [name for name, _ in artifact.args]
        self.fixed = {
            name: bindings[name]
            for name, kind in artifact.args
            if kind != "buffer" and artifact.arg_dtypes[name] == "index" and name in bindings
        }
        self.buffers = [name for name, kind in artifact.args if kind == "buffer"]
        # A number's type is in the signature, its value not: an int is range-checked each call.
        self.integers = [number for number in integer_numbers(artifact) if number[0] in bindings]
        self.unused = {self.names.index(name) for name in artifact.unused_buffers}
        self.views = {
            self.names.index(name): (dtype, IR_TO_TORCH[artifact.arg_dtypes[name]])
            for name, dtype in artifact.buffer_views.items()
        }
        values = zip(self.names, self.values(bindings), strict=True)
        first = {**bindings, **{name: value for name, value in values if name in bindings}}
        prepare = getattr(launcher, "prepare", None) or _each_call(launcher.launch)
        self.run: Runner = prepare(artifact, first)  # which checks every binding

    def __call__(self, bindings: Mapping[str, object], stacklevel: int = 2) -> None:
        """Launch on `bindings`: the buffers and scalar arguments at least (the index arguments
        are the plan's own); `stacklevel` points an overlap warning at the user's call."""
        if len(self.buffers) > 1:
            storages = {bindings[name].untyped_storage().data_ptr() for name in self.buffers}
            if len(storages) < len(self.buffers):
                warn_overlaps(self.artifact, bindings, stacklevel)
        for name, low, high in self.integers:
            if not low <= bindings[name] <= high:
                self.refuse_integer(name, bindings[name])
        self.run(self.values(bindings))

    def refuse_integer(self, name: str, value: int) -> None:
        """Raises: `value`, given for integer argument `name`, is outside its dtype."""
        _, low, high = next(number for number in self.integers if number[0] == name)
        check_range(self.artifact, name, value, low, high)

    def values(self, bindings: Mapping[str, object]) -> list[object]:
        """The kernel's arguments in order: buffers of the dtype the kernel takes them as (an
        empty one for a buffer it never touches), numbers as bound."""
        fixed = self.fixed
        return self.adapt(
            [fixed[name] if name in fixed else bindings.get(name) for name in self.names]
        )

    def adapt(self, values: list[object]) -> list[object]:
        """`values`, the kernel's arguments as bound, with each buffer it never touches an empty
        one and each buffer it views as another dtype so viewed."""
        for index in self.unused:
            tensor = values[index]
            if isinstance(tensor, torch.Tensor):
                values[index] = torch.empty(0, dtype=tensor.dtype, device=self.artifact.device)
        for index, (dtype, viewed_as) in self.views.items():
            tensor = values[index]
            if isinstance(tensor, torch.Tensor):
                if TORCH_DTYPES.get(tensor.dtype) != dtype:
                    raise LaunchError(
                        f"@{self.artifact.kernel_name} argument {self.names[index]!r} needs "
                        f"{dtype} elements, got {tensor.dtype}; convert it"
                    )
                values[index] = tensor.view(viewed_as)
        return values


def _launcher(backend: str):
    name = f"compiler.runtime.{backend}_launcher"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name != name:
            raise
        raise LaunchError(
            f"no launcher for backend {backend!r}; add {name.replace('.', '/')}.py"
        ) from None


def _each_call(launch: Callable) -> Callable[[Artifact, Mapping[str, object]], Runner]:
    """`prepare` for a launcher with only `launch`: every run checks and launches anew, with the
    plan's numbers the kernel does not take (a grid may name them) beside its arguments."""

    def prepare(artifact: Artifact, bindings: Mapping[str, object]) -> Runner:
        names = [name for name, _ in artifact.args]
        numbers = {k: v for k, v in bindings.items() if k not in names and isinstance(v, int)}
        return lambda values: launch(artifact, {**numbers, **dict(zip(names, values, strict=True))})

    return prepare


def _check_constexpr_sizes(artifact: Artifact, bindings: Mapping[str, object]) -> None:
    for name in artifact.constexpr_params:
        value = bindings.get(name)
        if isinstance(value, int) and (value < 1 or value & (value - 1)):
            raise LaunchError(
                f"@{artifact.kernel_name} keeps {name} a compile-time parameter that sizes its "
                f"tiles, which must be a power of two, got {value}; compile with -D {name}="
                f"{value} instead (the compiler pads a given size and masks the rest)"
            )
