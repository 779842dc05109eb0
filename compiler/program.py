"""Loading and running unmodified NineToothed programs with `ninetoothed` bound to compiler.dsl."""

from __future__ import annotations

import runpy
import sys
from contextlib import contextmanager
from pathlib import Path

import compiler.dsl
from compiler.errors import CompileError
from compiler.frontend.handle import KernelHandle, make
from compiler.suite.loader import load_program


@contextmanager
def ninetoothed_bound():
    bound = {"ninetoothed": compiler.dsl, "ninetoothed.language": compiler.dsl.language}
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
    module = load_program(path, compiler.dsl)
    kernels = {
        name: value for name, value in vars(module).items() if isinstance(value, KernelHandle)
    }
    if all(hasattr(module, n) for n in ("arrangement", "application", "tensors")):
        handle = make(module.arrangement, module.application, module.tensors)
        handle.kernel_name = Path(path).stem
        kernels[handle.kernel_name] = handle
    for handle in kernels.values():
        handle.backend, handle.device = backend, device
    if not kernels:
        raise CompileError(
            f"{path} defines no kernel: give it module-level `arrangement`, `application` and "
            "`tensors`, or decorate an application with `ninetoothed.jit`"
        )
    return kernels
