"""`make` and `jit`, NineToothed's entry points. They live in the frontend; importing it here on
first use keeps `compiler.dsl` importable from the frontend's own modules without a cycle."""

from __future__ import annotations


def make(arrangement, application, tensors, **options):
    """Integrate an arrangement and an application into a kernel (see `KernelHandle`)."""
    from compiler.frontend.handle import make as make_handle

    return make_handle(arrangement, application, tensors, **options)


def jit(func=None, **options):
    """The annotation style: parameters annotated with arranged tensors."""
    from compiler.frontend.handle import jit as jit_handle

    return jit_handle(func, **options)
