"""`ntc`: run, compile and inspect NineToothed programs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from compiler.backends import TARGETS
from compiler.backends.emitter import EmitError
from compiler.errors import CompileError
from compiler.passes.base import PassError

BACKENDS = sorted(TARGETS)


def cmd_compile(args: argparse.Namespace) -> None:
    from compiler.cli.program import parse_defines, program_kernels

    for name, handle in program_kernels(args.file, args.backend, args.device).items():
        artifact = handle.compile_declared(args.dtype, **parse_defines(args.define))
        if args.emit == "ssa":
            text = artifact.ssa
        elif args.emit == "trace":
            text = artifact.trace_json()
        else:
            text = artifact.source
        print(f"// kernel {name} ({args.backend} for {args.device}, {args.emit})")
        print(text)


def cmd_aot(args: argparse.Namespace) -> None:
    from compiler.cli.program import parse_defines, program_kernels
    from compiler.runtime import aot

    handles = program_kernels(args.file, args.backend, args.caller)
    defines = parse_defines(args.define)
    for name, handle in handles.items():
        handle.kernel_name = name  # the library is named as the file names the kernel
        built = aot.write(handle, args.caller, args.out, dtype=args.dtype, **defines)
        print(
            f"kernel {name}: {built.library} (launch_{handle.kernel_name} in "
            f"{Path(args.out) / handle.kernel_name}.h)"
        )


def cmd_trace(args: argparse.Namespace) -> None:
    from compiler.cli.program import parse_defines, program_kernels
    from compiler.viewer import write_trace_page

    handles = program_kernels(args.file, args.backend, args.device)
    if args.kernel is not None:
        if args.kernel not in handles:
            raise CompileError(
                f"{args.file} defines no kernel named {args.kernel!r}; it defines "
                f"{', '.join(sorted(handles))}: pass one of these to --kernel, or leave --kernel "
                "out for all of them"
            )
        handles = {args.kernel: handles[args.kernel]}
    defines = parse_defines(args.define)
    artifacts = {
        name: handle.compile_declared(args.dtype, **defines) for name, handle in handles.items()
    }
    context = {
        "file": args.file,
        "backend": args.backend,
        "device": args.device,
        "dtype": args.dtype,
        "-D": " ".join(args.define),
    }
    try:
        path = write_trace_page(args.html, artifacts, title="ntc trace", context=context)
    except OSError as error:
        raise CompileError(
            f"--html {args.html}: cannot write the page ({error.strerror or error}); give a file "
            "path in an existing, writable folder"
        ) from error
    passes = sum(len(artifact.trace) for artifact in artifacts.values())
    print(f"wrote {path}: {len(artifacts)} kernel(s), {passes} pass entries")


def cmd_run(args: argparse.Namespace) -> None:
    from compiler.cli.program import run_program

    run_program(args.file, args.args)


def cmd_passes(args: argparse.Namespace) -> None:
    """The registered passes by category, each with its description and the file it is in."""
    import compiler.backends  # noqa: F401 - backend-specific passes register on import
    from compiler.passes.base import CATEGORIES
    from compiler.passes.registry import all_passes

    root = Path(__file__).resolve().parents[2]
    for category in CATEGORIES:
        print(f"{category}:")
        for cls in all_passes(category):
            where = Path(sys.modules[cls.__module__].__file__).resolve().relative_to(root)
            print(f"  {cls.name:38} {cls.description}\n  {'':38} {where.as_posix()}")


def cmd_demo(args: argparse.Namespace) -> None:
    from compiler.suite.demo import run_demo

    run_demo(args.backend or None, args.show, args.show_backend)


def cmd_visualize(args: argparse.Namespace) -> None:
    from compiler.visualize import visualize_file

    visualized = visualize_file(
        args.file,
        pid=args.pid,
        loop=args.loop,
        out=args.out,
        kernel=args.kernel,
        shapes=args.shape,
        defines=args.define,
        dtype=args.dtype,
    )
    print("\n".join(visualized.summary()))


RUN_DESCRIPTION = """\
Run FILE as __main__ with `ninetoothed` bound to this compiler (Triton backend unless a call says
backend=...), so an unmodified NineToothed program runs here. The file is plain Python that
imports ninetoothed and torch, builds kernels with ninetoothed.make(arrangement, application,
tensors) or @ninetoothed.jit, calls them on torch tensors (device="cpu" here), and checks or
prints what it wants, e.g.:

    import torch
    import ninetoothed
    import ninetoothed.language as ntl
    from ninetoothed import Tensor

    def arrangement(x, y, out):
        return x.tile((64,)), y.tile((64,)), out.tile((64,))

    def application(x, y, out):
        out = ntl.maximum(x, y)  # noqa: F841

    kernel = ninetoothed.make(arrangement, application, (Tensor(1), Tensor(1), Tensor(1)))
    x, y = torch.randn(1000), torch.randn(1000)
    out = torch.empty_like(x)
    kernel(x, y, out)
    assert torch.equal(out, torch.maximum(x, y)), "mismatch"

It exits non-zero when the program raises (a failed assert included)."""


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="ntc", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)

    compile_ = commands.add_parser("compile", help="compile a program file and print a stage")
    compile_.add_argument("file")
    compile_.add_argument(
        "--backend", default="triton", help="triton, cuda, tilelang or tvm", choices=BACKENDS
    )
    compile_.add_argument(
        "--device", default="cpu", choices=("cpu", "cuda"), help="the form to emit (cpu: runs here)"
    )
    compile_.add_argument("--emit", choices=("ssa", "trace", "source"), default="source")
    compile_.add_argument("--dtype", default="f32", help="element type of undeclared tensors")
    compile_.add_argument(
        "-D", "--define", action="append", default=[], help="constexpr or meta value NAME=VALUE"
    )
    compile_.set_defaults(func=cmd_compile)

    ahead = commands.add_parser(
        "aot",
        help="build a program file's kernels ahead of time: C sources, headers, shared libraries",
        description=(
            "Build each kernel of FILE into --out: <kernel>.cu or .cpp (self-contained), "
            "<kernel>.h declaring NineToothedResult launch_<kernel>(NineToothedStream, "
            "NineToothedTensor...), ninetoothed.h, <kernel>.so and <kernel>.json. A C or C++ "
            "caller includes the header and links the library; Python loads it with "
            "compiler.runtime.aot.load(OUT, KERNEL)."
        ),
    )
    ahead.add_argument("file")
    ahead.add_argument(
        "--backend", default="cuda", help="cuda, tilelang, tvm or triton", choices=BACKENDS
    )
    ahead.add_argument(
        "--caller", default="cpu", choices=("cpu", "cuda"), help="the device the library runs on"
    )
    ahead.add_argument("--out", required=True, help="the folder to write into")
    ahead.add_argument("--dtype", default="f32", help="element type of undeclared tensors")
    ahead.add_argument(
        "-D", "--define", action="append", default=[], help="constexpr or meta value NAME=VALUE"
    )
    ahead.set_defaults(func=cmd_aot)

    trace = commands.add_parser(
        "trace", help="compile a program file and write its pass trace as one HTML page"
    )
    trace.add_argument("file")
    trace.add_argument("--html", required=True, help="the page to write (self-contained)")
    trace.add_argument("--kernel", help="only this kernel of the file (default: all of them)")
    trace.add_argument(
        "--backend", default="triton", help="triton, cuda, tilelang or tvm", choices=BACKENDS
    )
    trace.add_argument(
        "--device", default="cpu", choices=("cpu", "cuda"), help="the form to emit (cpu: runs here)"
    )
    trace.add_argument("--dtype", default="f32", help="element type of undeclared tensors")
    trace.add_argument(
        "-D", "--define", action="append", default=[], help="constexpr or meta value NAME=VALUE"
    )
    trace.set_defaults(func=cmd_trace)

    run = commands.add_parser(
        "run",
        help="run an unmodified NineToothed program",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=RUN_DESCRIPTION,
    )
    run.add_argument("file", help="the program: a Python file that imports ninetoothed")
    run.add_argument("args", nargs=argparse.REMAINDER, help="its own arguments (sys.argv[1:])")
    run.set_defaults(func=cmd_run)

    passes = commands.add_parser("passes", help="list the registered passes")
    passes.set_defaults(func=cmd_passes)

    demo = commands.add_parser(
        "demo", help="compile the kernel suite for every backend, run it on the CPU, check it"
    )
    demo.add_argument(
        "--backend", action="append", help="only these backends (default: all)", choices=BACKENDS
    )
    demo.add_argument("--show", default="matmul", help="kernel whose SSA and trace to print")
    demo.add_argument("--show-backend", default="triton", help="backend of the kernel shown")
    demo.set_defaults(func=cmd_demo)

    visualize = commands.add_parser(
        "visualize", help="draw which elements one program loads and stores, as a PNG"
    )
    visualize.add_argument("file")
    visualize.add_argument("--pid", type=int, required=True, help="the program id")
    visualize.add_argument(
        "--loop", type=int, help="iteration of the outermost loop to single out (default: all)"
    )
    visualize.add_argument("--out", required=True, help="the PNG to write")
    visualize.add_argument("--kernel", help="which kernel of the file (when it has several)")
    visualize.add_argument(
        "--shape",
        action="append",
        default=[],
        help="NAME=AxBxC: a tensor's shape (needed outside the suite; overrides the suite's)",
    )
    visualize.add_argument(
        "-D",
        "--define",
        action="append",
        default=[],
        help="NAME=VALUE: an arrangement keyword, scalar, constexpr or meta value",
    )
    visualize.add_argument("--dtype", default="f32", help="element type of undeclared tensors")
    visualize.set_defaults(func=cmd_visualize)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except (CompileError, PassError, EmitError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except SyntaxError as error:  # the program's own text: where, and what Python says
        print(f"error: {error.filename}:{error.lineno}: {error.msg}", file=sys.stderr)
        return 1
    return 0
