"""TVM ahead of time, on the CPU: TVM compiles the kernel (LLVM) into an object file holding its
packed function, `__tvm_ffi_<kernel>`, which the library links beside the launch function; the
launch calls it as TVM FFI does (a DLTensor per buffer: a flat view of the tensor's elements, as
the Python launcher passes it; ints and floats as tagged values), with the little of TVM's
runtime a kernel needs given in `c/ntc_tvm_call.h`, so the library needs no TVM to run."""

from __future__ import annotations

from pathlib import Path

from compiler.backends.artifact import Artifact
from compiler.errors import CompileError
from compiler.runtime.aot.launch import C_DIR, REFUSED, Argument
from compiler.runtime.cuda_build import library_command

SUFFIX = {"cpu": ".cpp"}

# IR dtype -> (DLPack type code, bits) of a buffer's elements.
_DL_TYPES = {
    "i1": (6, 8),
    **{f"i{n}": (0, n) for n in (8, 16, 32, 64)},
    **{f"u{n}": (1, n) for n in (8, 16, 32, 64)},
    **{"f16": (2, 16), "bf16": (4, 16), "f32": (2, 32), "f64": (2, 64)},
}
_FFI_INT, _FFI_BOOL, _FFI_FLOAT, _FFI_TENSOR = 1, 2, 3, 7


def source(artifact: Artifact) -> str:
    entry = f"__tvm_ffi_{artifact.kernel_name}"
    return (
        f"{(C_DIR / 'ntc_tvm_call.h').read_text()}\n"
        f'extern "C" int {entry}(void*, const ntc_ffi_any*, int32_t, ntc_ffi_any*);\n'
    )


def objects(artifact: Artifact, directory: Path) -> list[Path]:
    from compiler.runtime.tvm_launcher import object_file

    return [object_file(artifact, directory / f"{artifact.kernel_name}.o")]


def call(artifact: Artifact, held: list[Argument]) -> str:
    lines = [
        "__TVMBackendAllocWorkspace = (void*)ntc_alloc_workspace;",
        "__TVMBackendFreeWorkspace = (void*)ntc_free_workspace;",
        f"ntc_ffi_any ntc_any[{max(len(held), 1)}] = {{}};",
    ]
    for position, argument in enumerate(held):
        slot = f"ntc_any[{position}]"
        dtype = artifact.arg_dtypes[argument.name]
        if argument.kind == "buffer":
            code, bits = _dl_type(artifact, argument.name, dtype)
            lines += [
                f"int64_t ntc_extent{position} = ntc_extent({argument.param}, {argument.ndim});",
                f"ntc_dl_tensor ntc_tensor{position} = {{{argument.local}, {{1, 0}}, 1, "
                f"{{{code}, {bits}, 1}}, &ntc_extent{position}, NULL, 0}};",
                f"{slot}.type_index = {_FFI_TENSOR};",
                f"{slot}.v_ptr = &ntc_tensor{position};",
            ]
        elif dtype in ("f16", "bf16"):
            brain = "true" if dtype == "bf16" else "false"
            lines += [
                f"{slot}.type_index = {_FFI_FLOAT};",
                f"{slot}.v_float64 = ntc_half_value({argument.local}, {brain});",
            ]
        elif dtype in ("f32", "f64"):
            lines += [f"{slot}.type_index = {_FFI_FLOAT};", f"{slot}.v_float64 = {argument.local};"]
        else:
            kind = _FFI_BOOL if dtype == "i1" else _FFI_INT
            lines += [f"{slot}.type_index = {kind};", f"{slot}.v_int64 = {argument.local};"]
    entry = f"__tvm_ffi_{artifact.kernel_name}"
    lines += [
        "ntc_ffi_any ntc_result = {};",
        f"if ({entry}(NULL, ntc_any, {len(held)}, &ntc_result) != 0) {{",
        '  snprintf(ntc_message, sizeof ntc_message, "%s", ntc_tvm_message);',
        f"  return {REFUSED};",
        "}",
        "return 0;",
    ]
    return "\n".join(lines)


def command(artifact: Artifact) -> list[str]:
    return library_command("cpu")


def _dl_type(artifact: Artifact, name: str, dtype: str) -> tuple[int, int]:
    if dtype not in _DL_TYPES:
        raise CompileError(
            f"@{artifact.kernel_name}: argument {name!r} holds {dtype} elements, which the TVM "
            f"form passes in no DLPack type; use one of {', '.join(_DL_TYPES)}"
        )
    return _DL_TYPES[dtype]
