"""Loading and running unmodified NineToothed programs with `ninetoothed` bound to compiler.dsl."""

from __future__ import annotations

import functools
import runpy
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import compiler.dsl
from compiler.errors import CompileError
from compiler.frontend.handle import KernelHandle, make
from compiler.suite.loader import bound_arrangement, bound_modules, load_program


def ninetoothed_for(backend: str = "triton") -> ModuleType:
    """`compiler.dsl` as a module named `ninetoothed` whose `make` and `jit` compile for
    `backend` unless a call says otherwise."""
    module = ModuleType("ninetoothed", compiler.dsl.__doc__)
    module.__dict__.update(
        (name, value) for name, value in vars(compiler.dsl).items() if not name.startswith("__")
    )
    module.__path__ = []  # a package: its submodules are the ones `bound_modules` binds
    module.make = functools.partial(compiler.dsl.make, backend=backend)
    module.jit = functools.partial(compiler.dsl.jit, backend=backend)
    module.aot = ModuleType("ninetoothed.aot", compiler.dsl.aot.__doc__)
    module.aot.__dict__.update(
        (name, value) for name, value in vars(compiler.dsl.aot).items() if name[:2] != "__"
    )
    module.aot.aot = functools.partial(compiler.dsl.aot.aot, backend=backend)
    module.build = functools.partial(compiler.dsl.build, backend=backend)
    return module


@contextmanager
def ninetoothed_bound(backend: str = "triton"):
    bound = bound_modules(ninetoothed_for(backend))
    saved = {name: sys.modules.get(name) for name in bound}
    sys.modules.update(bound)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def run_program(path: str, argv: list[str]) -> None:
    """`ntc run FILE.py`: the program runs as `__main__`, its `import ninetoothed` is ours."""
    sys.argv = [path, *argv]
    with ninetoothed_bound():
        runpy.run_path(path, run_name="__main__")


def program_kernels(path: str, backend: str, device: str = "cpu") -> dict[str, KernelHandle]:
    """The kernels a program file defines (module-level arrangement/application/tensors, and
    every `jit` function), each compiling for `backend` and `device`."""
    if not Path(path).is_file():
        raise CompileError(f"{path}: no such file")
    kernels = module_kernels(load_program(path, compiler.dsl), path)
    for handle in kernels.values():
        handle.backend, handle.device = backend, device
    return kernels


def module_kernels(module, path: str, arrangement_kwargs: dict | None = None) -> dict:
    """The kernels of a loaded program module: its `jit` functions, and the module-level
    arrangement/application/tensors (named after the file) with `arrangement_kwargs` bound."""
    kernels = {
        name: value for name, value in vars(module).items() if isinstance(value, KernelHandle)
    }
    if all(hasattr(module, n) for n in ("arrangement", "application", "tensors")):
        arrangement = bound_arrangement(module.arrangement, arrangement_kwargs or {})
        handle = make(arrangement, module.application, module.tensors)
        handle.kernel_name = Path(path).stem
        kernels[handle.kernel_name] = handle
    if not kernels:
        raise CompileError(
            f"{path} defines no kernel: give it module-level `arrangement`, `application` and "
            "`tensors`, or decorate an application with `ninetoothed.jit`"
        )
    return kernels


def parse_defines(items: list[str]) -> dict[str, int | float]:
    """`-D NAME=VALUE` options: each value an int, else a float."""
    values = {}
    for item in items:
        name, _, text = item.partition("=")
        try:
            values[name] = int(text)
        except ValueError:
            try:
                values[name] = float(text)
            except ValueError:
                raise CompileError(
                    f"-D {item}: write NAME=VALUE with a number, e.g. -D BLOCK_SIZE=128"
                ) from None
    return values
