"""A torch argument as a kernel indexes it: a dense tensor's memory, sizes and strides, or a
jagged nested tensor's values, with its ragged size the longest sequence's (`handle.py` binds
them; `access.py` adds each sequence's start and masks its end)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import torch

from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError


def argument_layout(arg: torch.Tensor) -> tuple[torch.Tensor, list[int], list[int]]:
    """(memory, sizes, strides) a kernel indexes: a dense tensor's own; for a jagged nested
    tensor its values (every dimension but the batch, the ragged one packed), with the longest
    sequence for the ragged size and stride 0 for the batch (each sequence's start comes from its
    offsets)."""
    if not arg.is_nested:
        return arg, list(arg.shape), list(arg.stride())
    values, offsets = arg.values(), arg.offsets()
    longest = int(offsets.diff().max()) if offsets.numel() > 1 else 0
    sizes = [offsets.numel() - 1, *values.shape]
    sizes[arg._ragged_idx] = longest
    return values, sizes, [0, *values.stride()]


def argument_bindings(
    names: Sequence[str], constexprs: Collection[str], args: Sequence[object]
) -> dict[str, object]:
    """Kernel argument name -> value for positional `args`: tensors with their sizes and strides
    (and a jagged tensor's offsets), numbers as given; the `constexprs` are compiled in."""
    bindings = {}
    for name, arg in zip(names, args, strict=True):
        if isinstance(arg, torch.Tensor):
            memory, sizes, strides = argument_layout(arg)
            bindings[name] = memory
            for d, (size, stride) in enumerate(zip(sizes, strides, strict=True)):
                bindings[f"{name}_size_{d}"] = size
                bindings[f"{name}_stride_{d}"] = stride
            if arg.is_nested:
                bindings[f"{name}_offsets"] = arg.offsets()
        elif name not in constexprs:
            bindings[name] = arg
    return bindings


def check_jagged(name: str, tensor: Tensor, arg: torch.Tensor) -> None:
    if tensor.jagged_dim is None and arg.is_nested:
        raise CompileError(
            f"argument for {name} is a nested tensor, and {name} is not jagged: declare it "
            "Tensor(ndim, jagged_dim=1), or pass a dense tensor"
        )
    if tensor.jagged_dim is not None:
        ragged = getattr(arg, "_ragged_idx", None) if arg.is_nested else None
        if arg.layout != torch.jagged or ragged != tensor.jagged_dim or arg.dim() != tensor.ndim:
            raise CompileError(
                f"argument for {name} must be a {tensor.ndim}-dimensional nested tensor with "
                f"layout=torch.jagged, ragged in dimension {tensor.jagged_dim} "
                "(torch.nested.nested_tensor([...], layout=torch.jagged) of parts that differ in "
                f"their dimension {tensor.jagged_dim - 1})"
            )


def check_declared_sizes(name: str, tensor: Tensor, arg: torch.Tensor) -> None:
    """A size the Tensor declares (`Tensor(shape=(1024, None))`) is compiled into the kernel: a
    tensor of another size there would be indexed past its end."""
    sizes = argument_layout(arg)[1]
    if len(sizes) != tensor.ndim:
        raise CompileError(
            f"argument for {name} has {len(sizes)} dims, and its Tensor declares {tensor.ndim}; "
            "pass a tensor with as many dims"
        )
    for dim, (declared, actual) in enumerate(zip(tensor.shape, sizes, strict=True)):
        if isinstance(declared, int) and declared != actual:
            raise CompileError(
                f"argument for {name} has size {actual} in dim {dim}, and its Tensor declares "
                f"{declared}, which the kernel is compiled for; pass a tensor of that size, or "
                "declare the size open (None)"
            )
