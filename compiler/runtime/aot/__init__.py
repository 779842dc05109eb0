"""Ahead-of-time kernels: C sources, a header and a shared library with a C launch function, for
callers that are not Python (C++ operator libraries), as NineToothed's `make(..., caller=...)`
writes them for Triton; here for each backend that has a form (`<backend>_form.py`).

`write(handle, caller, output_dir)` compiles a kernel handle for the device `caller` ("cpu" or
"cuda") in its 64-bit index form, and writes into `output_dir`:

- `ninetoothed.h`: the calling convention's types (`c/ninetoothed.h`);
- `<kernel>.h`: `launch_<kernel>` and `launch_<kernel>_error` (`launch.header`);
- `<kernel>.cu` or `.cpp`: the kernel, everything it includes inlined, and the launch function;
- `<kernel>.so`: that file built; `<kernel>.json`: its parameters, for `load`.

`load(output_dir, kernel_name)` is the library as a Python callable (`library.AotKernel`).
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import torch

from compiler.backends.registry import get_target
from compiler.errors import CompileError
from compiler.frontend.dtypes import ir_dtype
from compiler.frontend.handle import in_memory
from compiler.ir import parse_kernel
from compiler.runtime.aot.launch import C_DIR, Parameter, arguments, header, launch_function
from compiler.runtime.aot.library import AotKernel, build
from compiler.runtime.relower import relowered


@dataclass(frozen=True)
class Built:
    library: Path
    inputs: list[Path]  # the self-contained source it was built from, and what else it links
    command: list[str]  # the compiler and flags it was built with (sources and -o follow)


# The backends with a form here: a module `<backend>_form` with SUFFIX (the callers it serves, each
# with its source's suffix), `source(artifact)` (what precedes the launch function), `call(artifact,
# arguments)` (the launch's statements that run the kernel), `command(artifact)` (the compiler
# and flags) and, where the library links more than the source, `objects(artifact, directory)`.
FORMS = ("cuda", "tilelang", "triton", "tvm")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def write(
    handle,
    caller: str,
    output_dir: str | Path,
    *,
    like=None,
    dtype: str = "f32",
    index_bits: int = 64,
    **defines,
) -> Built:
    """Compile `handle` (a KernelHandle) ahead of time for `caller` into `output_dir`, and build
    its library. `like`: (args, kwargs) the kernel will be called like, from which the element
    types, constexpr values and constexpr sizes come, as a Python call would take them; without
    it, the tensors' declared dtypes (else `dtype`) and `defines` (constexpr and meta values, as
    `ntc compile -D` takes them). `index_bits`: 64 builds the form every tensor fits; 32 the
    target's own narrower one, whose launch refuses tensors past it."""
    name = handle.kernel_name
    if not _IDENTIFIER.fullmatch(name):
        raise CompileError(f"kernel_name={name!r} is not a C identifier; name it like add_f16")
    form = _form(handle.backend, caller)
    handle.device = caller
    if like is not None:
        args, kwargs = handle.bind_arguments(tuple(like[0]), dict(like[1]))
        artifact = handle.compile(*args, **kwargs)
        constants = {**kwargs, **dict(zip(handle.names, args, strict=False))}
        constants |= handle.shape_constexprs(args)
    else:
        artifact = handle.compile_declared(dtype, **defines)
        constants = defines
    if artifact.constexpr_params:
        given = " ".join(f"-D {p}=N" for p in artifact.constexpr_params)
        raise CompileError(
            f"{name}: {', '.join(artifact.constexpr_params)} must have values ahead of time "
            f"(a library is built for them); give them ({given}, or as make()'s tensors' shapes)"
        )
    wide = get_target(artifact.backend, caller).widened() is not None
    if index_bits >= 64 and artifact.index_bits < 64 and wide:
        artifact = relowered(artifact, index_bits=64)
    parameters = _parameters(handle, artifact, dtype, constants)
    call = form.call(artifact, arguments(artifact, parameters))
    launch = launch_function(artifact, parameters, call)
    directory = Path(output_dir)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "ninetoothed.h").write_text((C_DIR / "ninetoothed.h").read_text())
    (directory / f"{name}.h").write_text(header(name, parameters))
    source = directory / f"{name}{form.SUFFIX[caller]}"
    helpers = (C_DIR / "ntc_aot_launch.h").read_text()
    source.write_text(f'#include "ninetoothed.h"\n\n{form.source(artifact)}\n{helpers}\n{launch}')
    manifest = {"kernel": name, "caller": caller, "backend": handle.backend}
    manifest["parameters"] = [p.to_dict() for p in parameters]
    (directory / f"{name}.json").write_text(json.dumps(manifest, indent=2) + "\n")
    command = form.command(artifact)
    inputs = [source, *(form.objects(artifact, directory) if hasattr(form, "objects") else [])]
    return Built(build(command, inputs, directory / f"{name}.so"), inputs, command)


def load(output_dir: str | Path, kernel_name: str):
    """The library `<kernel>.so` of `output_dir` as a Python callable: an AotKernel, or for a
    library of variants (`ninetoothed.build`) a VariantsKernel."""
    from compiler.runtime.aot.variants import VariantsKernel

    manifest = Path(output_dir) / f"{kernel_name}.json"
    described = json.loads(manifest.read_text()) if manifest.is_file() else {}
    if "variants" in described:
        return VariantsKernel(output_dir, kernel_name, described)
    return AotKernel(output_dir, kernel_name)


def _form(backend: str, caller: str):
    if backend not in FORMS:
        raise CompileError(
            f"backend {backend!r} has no ahead-of-time form; use one of {', '.join(FORMS)}"
        )
    form = _module(backend)
    if caller not in form.SUFFIX:
        others = [b for b in FORMS if caller in _module(b).SUFFIX]
        raise CompileError(
            f"caller={caller!r}: the {backend} backend's ahead-of-time form runs on "
            f"{', '.join(form.SUFFIX)}; for {caller}, use backend {' or '.join(others)}"
        )
    return form


def _module(backend: str):
    return importlib.import_module(f"compiler.runtime.aot.{backend}_form")


def _parameters(handle, artifact, dtype: str, constants: dict) -> list[Parameter]:
    """One launch parameter per application parameter, of the element type the program was
    compiled for (the caller's: before a pass views a buffer or a scalar as another); a constexpr
    with the value it was compiled for (`constants` by name, else its tensor's); a tensor with
    the sizes compiled into the kernel."""
    declared = {arg.name: arg.type.dtype for arg in parse_kernel(artifact.initial_ssa).args}
    parameters = []
    for name, tensor, arranged in zip(handle.names, handle.tensors, handle.arranged, strict=True):
        if tensor.constexpr:
            value = constants.get(name, tensor.value)
            value = value.item() if isinstance(value, torch.Tensor) else value
            parameters.append(Parameter(name, "constexpr", "", 0, value))
            continue
        passed = declared.get(name) or (ir_dtype(tensor.dtype) if tensor.dtype else dtype)
        kind = "tensor" if in_memory(tensor, arranged) else "scalar"
        # Declared sizes, and sizes declared constexpr that were given values: compiled in.
        sizes = tuple(
            size if isinstance(size, int) else constants.get(getattr(size, "name", None))
            for size in tensor.shape
        )
        parameters.append(Parameter(name, kind, passed, tensor.ndim, sizes=sizes))
    return parameters
