"""`ntc`: run, compile and inspect NineToothed programs."""

from __future__ import annotations

import argparse
import sys

from compiler.errors import CompileError
from compiler.passes.base import PassError


def _defines(items: list[str]) -> dict[str, int]:
    values = {}
    for item in items:
        name, _, value = item.partition("=")
        if not value:
            raise CompileError(f"-D {item}: write NAME=VALUE, e.g. -D BLOCK_SIZE=128")
        values[name] = int(value)
    return values


def cmd_compile(args: argparse.Namespace) -> None:
    from compiler.program import program_kernels

    for name, handle in program_kernels(args.file, args.backend, args.device).items():
        artifact = handle.compile_declared(args.dtype, **_defines(args.define))
        if args.emit == "ssa":
            text = artifact.ssa
        elif args.emit == "trace":
            text = artifact.trace_json()
        else:
            text = artifact.source
        print(f"// kernel {name} ({args.backend} for {args.device}, {args.emit})")
        print(text)


def cmd_run(args: argparse.Namespace) -> None:
    from compiler.program import run_program

    run_program(args.file, args.args)


def cmd_passes(args: argparse.Namespace) -> None:
    import compiler.backends  # noqa: F401 - backend-specific passes register on import
    from compiler.passes.registry import all_passes

    for cls in all_passes():
        print(f"{cls.name:40} {cls.category:22} {cls.description}")


def cmd_demo(args: argparse.Namespace) -> None:
    from compiler.demo import run_demo

    run_demo(args.backend or None, args.show, args.show_backend)


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="ntc", description=__doc__)
    commands = root.add_subparsers(dest="command", required=True)

    compile_ = commands.add_parser("compile", help="compile a program file and print a stage")
    compile_.add_argument("file")
    compile_.add_argument("--backend", default="triton", help="triton, cuda, tilelang or tvm")
    compile_.add_argument(
        "--device", default="cpu", choices=("cpu", "cuda"), help="the form to emit (cpu: runs here)"
    )
    compile_.add_argument("--emit", choices=("ssa", "trace", "source"), default="source")
    compile_.add_argument("--dtype", default="f32", help="element type of undeclared tensors")
    compile_.add_argument(
        "-D", "--define", action="append", default=[], help="constexpr or meta value NAME=VALUE"
    )
    compile_.set_defaults(func=cmd_compile)

    run = commands.add_parser("run", help="run an unmodified NineToothed program")
    run.add_argument("file")
    run.add_argument("args", nargs=argparse.REMAINDER)
    run.set_defaults(func=cmd_run)

    passes = commands.add_parser("passes", help="list the registered passes")
    passes.set_defaults(func=cmd_passes)

    demo = commands.add_parser(
        "demo", help="compile the kernel suite for every backend, run it on the CPU, check it"
    )
    demo.add_argument("--backend", action="append", help="only these backends (default: all)")
    demo.add_argument("--show", default="matmul", help="kernel whose SSA and trace to print")
    demo.add_argument("--show-backend", default="triton", help="backend of the kernel shown")
    demo.set_defaults(func=cmd_demo)
    return root


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.func(args)
    except (CompileError, PassError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0
