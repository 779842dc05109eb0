"""TileLang ahead of time. On the CPU: the C TileLang generates for the kernel (target "c"), called
directly; the kernel loops over its programs itself. On a CUDA GPU: the CUDA C++ TileLang generates
for the kernel's CUDA form, launched one block per program with the threads and the dynamic shared
memory TileLang lowered it for. Either way TileLang's own headers are inlined so the source stands
alone (on CUDA, less the CUTLASS headers TileLang's templates build on: the build command names
the copy TileLang ships). The kernel takes each buffer with its extent (the elements it may touch,
which it bounds-checks against), worked out here from the tensor's sizes and strides."""

from __future__ import annotations

import re
from pathlib import Path

from compiler.backends.artifact import Artifact
from compiler.errors import CompileError
from compiler.runtime.aot.launch import Argument
from compiler.runtime.cuda_build import library_command

SUFFIX = {"cpu": ".cpp", "cuda": ".cu"}
# Dynamic shared memory past this needs the kernel's attribute raised first (CUDA's default cap).
_DEFAULT_SHARED_MEMORY = 48 * 1024

_INCLUDE = re.compile(r'^#include\s+[<"](?P<path>[^>"]+)[>"].*$', re.MULTILINE)


def source(artifact: Artifact) -> str:
    import tilelang

    return _inlined(_generated(artifact), Path(tilelang.env.TILELANG_TEMPLATE_PATH), set())


def call(artifact: Artifact, held: list[Argument]) -> str:
    values = [(ctype, f"({ctype}){value}") for ctype, value in _values(artifact, held)]
    name = f"{artifact.kernel_name}_kernel"
    if artifact.device == "cpu":
        return f"return {name}({', '.join(value for _, value in values)});"
    from compiler.runtime.tilelang_launcher import cuda_kernel

    kernel = cuda_kernel(artifact)
    lines = [f"{ctype} ntc_kernel_{i} = {value};" for i, (ctype, value) in enumerate(values)]
    pointers = ", ".join(f"&ntc_kernel_{i}" for i in range(len(lines)))
    lines.append(f"void* ntc_args[] = {{{pointers}}};")
    shared = kernel.dynamic_shared_memory
    lines.append("cudaError_t ntc_status = cudaSuccess;")
    if shared > _DEFAULT_SHARED_MEMORY:
        lines.append(
            f"ntc_status = cudaFuncSetAttribute({name}, "
            f"cudaFuncAttributeMaxDynamicSharedMemorySize, {shared});"
        )
    lines.append(
        f"if (ntc_status == cudaSuccess) ntc_status = cudaLaunchKernel((const void*){name}, "
        f"dim3((unsigned)ntc_grid), dim3({kernel.threads}), ntc_args, {shared}, "
        "(cudaStream_t)stream);"
    )
    lines.append("return (int)ntc_status;")
    return "\n".join(lines)


def command(artifact: Artifact) -> list[str]:
    if artifact.device == "cpu":
        return library_command("cpu")
    import tilelang

    # TileLang's CUDA templates need C++20 and CUTLASS (shipped with TileLang).
    nvcc = library_command("cuda")
    flags = [f for f in nvcc if not f.startswith("-std=")]
    return [*flags, "-std=c++20", "-w", f"-I{tilelang.env.CUTLASS_INCLUDE_DIR}"]


def _values(artifact: Artifact, held: list[Argument]) -> list[tuple[str, str]]:
    """(C type, C expression) of each parameter of TileLang's function, in its order: a buffer's
    pointer, its extent, a scalar's bits as the parameter's type."""
    by_name = {a.name: a for a in held}
    values = []
    for ctype, name in _parameters(artifact):
        argument = by_name.get(name)
        base = name.removesuffix("_extent")
        if argument is None and base in by_name and by_name[base].kind == "buffer":
            owner = by_name[base]
            values.append((ctype, f"ntc_extent({owner.param}, {owner.ndim})"))
        elif argument is None:
            raise CompileError(
                f"@{artifact.kernel_name}: TileLang's function takes {name!r}, which is no "
                "kernel argument; TileLang's generated code changed (see compiler/runtime/aot/)"
            )
        elif argument.kind == "buffer":
            values.append((ctype, argument.local))
        else:  # the same bits, as the parameter's type
            values.append((ctype, f"*({ctype}*)&{argument.local}"))
    return values


def _parameters(artifact: Artifact) -> list[tuple[str, str]]:
    """(C type, name) of each parameter of the generated function, in its order."""
    text = _generated(artifact)
    name = re.escape(f"{artifact.kernel_name}_kernel")
    match = re.search(rf"\b{name}\(([^)]*)\)\s*\{{", text)
    if match is None:
        raise CompileError(
            f"@{artifact.kernel_name}: TileLang's source defines no {artifact.kernel_name}"
            "_kernel function; TileLang's generated code changed (see compiler/runtime/aot/)"
        )
    pairs = [p.strip().rsplit(None, 1) for p in match.group(1).split(",") if p.strip()]
    return [(ctype.replace("__restrict__", "").strip(), name) for ctype, name in pairs]


def _generated(artifact: Artifact) -> str:
    """The C or CUDA C++ TileLang generates for the kernel (made once per process)."""
    from compiler.runtime.tilelang_launcher import compiled, cuda_kernel

    if artifact.device == "cuda":
        return cuda_kernel(artifact).source
    return compiled(artifact).get_kernel_source()


def _inlined(text: str, root: Path, seen: set[Path], here: Path | None = None) -> str:
    """`text` (a file in folder `here`) with each include found beside it or under `root`
    replaced by its file (once)."""

    def replace(match: re.Match) -> str:
        path = next(
            (p.resolve() for p in (beside / match["path"], root / match["path"]) if p.is_file()),
            None,
        )
        if path is None:
            return match.group(0)
        if path in seen:
            return ""
        seen.add(path)
        return _inlined(path.read_text(), root, seen, path.parent)

    beside = here or root
    return _INCLUDE.sub(replace, text)
