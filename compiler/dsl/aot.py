"""`ninetoothed.aot`: NineToothed's ahead-of-time entry. `aot(application, caller, kernel_name,
output_dir)` builds an application whose parameters are annotated with arranged tensors (as
`make(..., caller=...)` annotates them) into C sources, a header and a shared library in
`output_dir`, and returns the library's launch function as a Python callable
(compiler/runtime/aot)."""


def aot(
    func,
    caller="cuda",
    kernel_name=None,
    output_dir=None,
    num_warps=None,
    num_stages=None,
    *,
    backend="triton",
):
    from compiler.frontend.handle import jit

    options = {"kernel_name": kernel_name, "num_warps": num_warps, "num_stages": num_stages}
    handle = jit(func, backend=backend, **{k: v for k, v in options.items() if v is not None})
    return built(handle, caller, output_dir)


def built(handle, caller, output_dir):
    """`handle` built ahead of time for `caller` into `output_dir`, loaded back."""
    from compiler.errors import CompileError
    from compiler.runtime import aot as ahead_of_time

    if output_dir is None:
        raise CompileError(
            f"{handle.kernel_name}: caller={caller!r} builds the kernel ahead of time and needs "
            "output_dir, the folder its sources and library go to (caller='torch': Python calls it)"
        )
    ahead_of_time.write(handle, caller, output_dir)
    return ahead_of_time.load(output_dir, handle.kernel_name)


def _overflow_terms(names, ndims):
    """NineToothed's name for the conditions a 32-bit form's launch function checks per size and
    stride (compiler/runtime/aot/launch.py writes them into every such launch)."""
    from compiler.runtime.aot.launch import overflow_terms

    return overflow_terms(list(names), list(ndims))
