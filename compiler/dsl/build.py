"""`ninetoothed.build`: one library holding a kernel built ahead of time once per configuration.

`build(premake, configs, caller=, kernel_name=, output_dir=)`: each configuration is
`(args, kwargs, compilation_configs)`; `premake(*args, **kwargs)` gives its arrangement,
application and tensors, built as `make(..., caller=...)` builds them with the compilation configs
(`num_warps`, `num_stages`). The library's launch function takes the tensors, then one int per
premake parameter (`<name>_`, in premake's order, defaults included) and per compilation config,
and runs the variant those values were built for (compiler/runtime/aot/variants.py).

With `meta_parameters`, those premake parameters and the compilation configs are not passed: for
each combination of the others, the variants that differ only in them are timed on tensors of the
declared shapes (a size left open as 256, or its upper bound if smaller) on `caller`, and the
fastest is the one the launch runs.
"""

from __future__ import annotations

import inspect
from pathlib import Path

WARM_UP_SIZE = 256  # a size the declaration leaves open, for timing


def build(
    premake,
    configs,
    *,
    meta_parameters=None,
    caller=None,
    kernel_name=None,
    output_dir=None,
    lazy=False,
    backend="triton",
):
    if lazy:
        return _Lazy(
            lambda: build(
                premake,
                configs,
                meta_parameters=meta_parameters,
                caller=caller,
                kernel_name=kernel_name,
                output_dir=output_dir,
                backend=backend,
            )
        )
    from compiler.errors import CompileError
    from compiler.frontend.handle import make
    from compiler.runtime import aot
    from compiler.runtime.aot.variants import Variant, config_int, write_dispatcher

    caller = caller or "cuda"
    if output_dir is None or kernel_name is None:
        raise CompileError("build() needs kernel_name and output_dir: what to call the library")
    combinations, candidates = [], []
    for index, (args, kwargs, compilation) in enumerate(configs):
        arrangement, application, tensors = premake(*args, **kwargs)
        bound = inspect.signature(premake).bind(*args, **kwargs)
        bound.apply_defaults()
        combination = {f"{n}_": v for n, v in bound.arguments.items()} | dict(compilation)
        combinations.append(combination)
        handle = make(
            arrangement,
            application,
            tensors,
            backend=backend,
            kernel_name=f"{kernel_name}_{index}",
            **compilation,
        )
        built = aot.write(handle, caller, output_dir)
        candidates.append((handle.kernel_name, tuple(handle.names), built, tensors))
    if not candidates:
        raise CompileError("build() got no configurations; give at least one")
    # A value a configuration does not set (a compilation config only some give) is None: the
    # launch does not compare it.
    names = list(dict.fromkeys(n for combination in combinations for n in combination))
    candidates = [
        (Variant(name, tuple(_int_or_none(c, n, config_int) for n in names), params), b, t)
        for c, (name, params, b, t) in zip(combinations, candidates, strict=True)
    ]
    meta = {f"{m}_" for m in meta_parameters or ()}
    meta |= {n for _, _, compilation in configs for n in compilation} if meta_parameters else set()
    kept = [i for i, n in enumerate(names) if n not in meta]
    chosen = _fastest(candidates, kept, Path(output_dir), caller) if meta else candidates
    variants = [Variant(v.name, tuple(v.key[i] for i in kept), v.tensors) for v, _, _ in chosen]
    write_dispatcher(
        kernel_name,
        Path(output_dir),
        [names[i] for i in kept],
        variants,
        [path for _, built, _ in chosen for path in built.inputs],
        chosen[0][1].command,
        caller,
    )
    return aot.load(output_dir, kernel_name)


def _int_or_none(combination: dict, name: str, config_int) -> int | None:
    return config_int(combination[name], name) if name in combination else None


def _fastest(candidates: list, kept: list[int], output_dir, caller: str) -> list:
    """Per combination of the kept configuration values, the candidate whose library runs
    fastest on tensors of its declared shapes."""
    from compiler.runtime import aot
    from compiler.runtime.timing import time_call

    groups: dict[tuple, list] = {}
    for candidate in candidates:
        groups.setdefault(tuple(candidate[0].key[i] for i in kept), []).append(candidate)
    chosen = []
    for group in groups.values():
        if len(group) == 1:
            chosen.append(group[0])
            continue
        timings = []
        for variant, _, tensors in group:
            library = aot.load(output_dir, variant.name)
            args = [_warm_up(tensor, caller) for tensor in tensors if not tensor.constexpr]
            timings.append(time_call(lambda library=library, args=args: library(*args), caller))
        chosen.append(group[timings.index(min(timings))])
    return chosen


def _warm_up(tensor, caller: str):
    """A value like the ones `tensor` declares: its sizes (an open one WARM_UP_SIZE, or its upper
    bound if smaller), its dtype (else float32); a number for a scalar."""
    import torch

    from compiler.frontend.dtypes import ir_dtype
    from compiler.runtime.plan import IR_TO_TORCH

    dtype = IR_TO_TORCH[ir_dtype(tensor.dtype)] if tensor.dtype else torch.float32
    if tensor.ndim == 0:
        return torch.ones((), dtype=dtype).item()
    shape = [
        size
        if isinstance(size, int)
        else min(WARM_UP_SIZE, getattr(size, "upper_bound", None) or WARM_UP_SIZE)
        for size in tensor.shape
    ]
    return torch.zeros(shape, dtype=dtype, device=caller)


class _Lazy:
    """A build deferred to the first call (NineToothed's `lazy=True`)."""

    def __init__(self, factory):
        self._factory = factory
        self._kernel = None

    def __call__(self, *args, **kwargs):
        if self._kernel is None:
            self._kernel = self._factory()
        return self._kernel(*args, **kwargs)
