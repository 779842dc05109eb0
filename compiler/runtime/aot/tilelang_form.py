"""TileLang ahead of time, on the CPU: the C TileLang generates for the kernel (target "c"), with
TileLang's own headers inlined so the `.cpp` stands alone, called directly. The kernel loops over
its programs itself; it takes each buffer with its extent (the elements it may touch, which it
bounds-checks against), worked out here from the tensor's sizes and strides."""

from __future__ import annotations

import re
from pathlib import Path

from compiler.backends.artifact import Artifact
from compiler.errors import CompileError
from compiler.runtime.aot.launch import Argument
from compiler.runtime.cuda_build import library_command

SUFFIX = ".cpp"
DEVICES = ("cpu",)

_INCLUDE = re.compile(r'^#include\s+[<"](?P<path>[^>"]+)[>"].*$', re.MULTILINE)


def source(artifact: Artifact) -> str:
    import tilelang

    return _inlined(_generated(artifact), Path(tilelang.env.TILELANG_TEMPLATE_PATH), set())


def call(artifact: Artifact, held: list[Argument]) -> str:
    by_name = {a.name: a for a in held}
    values = []
    for ctype, name in _parameters(artifact):
        argument = by_name.get(name)
        base = name.removesuffix("_extent")
        if argument is None and base in by_name and by_name[base].kind == "buffer":
            owner = by_name[base]
            values.append(f"({ctype})ntc_extent({owner.param}, {owner.ndim})")
        elif argument is None:
            raise CompileError(
                f"@{artifact.kernel_name}: TileLang's C function takes {name!r}, which is no "
                "kernel argument; the TileLang C form changed (see compiler/runtime/aot/)"
            )
        elif argument.kind == "buffer":
            values.append(f"({ctype}){argument.local}")
        else:  # the same bits, as the parameter's type
            values.append(f"*({ctype}*)&{argument.local}")
    return f"return {artifact.kernel_name}_kernel({', '.join(values)});"


def command(artifact: Artifact) -> list[str]:
    return library_command("cpu")


def _parameters(artifact: Artifact) -> list[tuple[str, str]]:
    """(C type, name) of each parameter of the generated function, in its order."""
    text = _generated(artifact)
    match = re.search(rf"\b{re.escape(artifact.kernel_name)}_kernel\(([^)]*)\)\s*\{{", text)
    if match is None:
        raise CompileError(
            f"@{artifact.kernel_name}: TileLang's C source defines no {artifact.kernel_name}"
            "_kernel function; the TileLang C form changed (see compiler/runtime/aot/)"
        )
    pairs = [p.strip().rsplit(None, 1) for p in match.group(1).split(",") if p.strip()]
    return [(ctype, name) for ctype, name in pairs]


def _generated(artifact: Artifact) -> str:
    """The C TileLang generates for the kernel (built once per process)."""
    from compiler.runtime.tilelang_launcher import compiled

    return compiled(artifact).get_kernel_source()


def _inlined(text: str, root: Path, seen: set[Path]) -> str:
    """`text` with each include found under `root` replaced by its file (once)."""

    def replace(match: re.Match) -> str:
        path = (root / match["path"]).resolve()
        if not path.is_file():
            return match.group(0)
        if path in seen:
            return ""
        seen.add(path)
        return _inlined(path.read_text(), path.parent, seen)

    return _INCLUDE.sub(replace, text)
