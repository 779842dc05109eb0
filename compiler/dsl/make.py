"""`make` and `jit`, NineToothed's entry points. They live in the frontend; importing it here on
first use keeps `compiler.dsl` importable from the frontend's own modules without a cycle."""

from __future__ import annotations


def make(arrangement, application, tensors, caller="torch", output_dir=None, **options):
    """Integrate an arrangement and an application into a kernel: for caller "torch" a handle
    Python calls (see `KernelHandle`); for a device ("cpu", "cuda") one built ahead of time into
    `output_dir` (C sources, a header, a shared library; `ninetoothed.aot`), whose launch function
    is returned, callable from Python too."""
    from compiler.dsl.aot import built
    from compiler.frontend.handle import make as make_handle

    handle = make_handle(arrangement, application, tensors, **options)
    return handle if caller == "torch" else built(handle, caller, output_dir)


def jit(func=None, **options):
    """The annotation style: parameters annotated with arranged tensors."""
    from compiler.frontend.handle import jit as jit_handle

    return jit_handle(func, **options)
