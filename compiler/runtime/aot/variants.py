"""A library of variants: several ahead-of-time builds of one kernel (as NineToothed's `build`
makes one per configuration), with one launch function that picks a variant by integer
configuration arguments after the tensors:

    NineToothedResult launch_<kernel>(NineToothedStream stream, NineToothedTensor <param>...,
                                      int <config>...)

Each configuration value is an int: a bool or None as 1 or 0, a dtype as its place in
`ninetoothed.h`'s NineToothedDataType (`config_int`). No variant for the values given is a
refused launch (`launch_<kernel>_error()` names them), never another variant's answer.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from pathlib import Path

from compiler.errors import CompileError
from compiler.runtime.aot.launch import REFUSED, Parameter, c_parameters, declarations
from compiler.runtime.aot.library import (
    AotKernel,
    NineToothedTensor,
    build,
    check_result,
    stream_of,
)
from compiler.runtime.bindings import LaunchError

# NineToothedDataType's order (c/ninetoothed.h): a dtype configuration value is its place here.
DTYPE_ORDER = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
DTYPE_ORDER += ("fp16", "bf16", "fp32", "fp64")


@dataclass(frozen=True)
class Variant:
    name: str  # its kernel name: its library's functions are launch_<name>, launch_<name>_error
    key: tuple[int | None, ...]  # the configuration values that choose it (None: any)

    def chosen_by(self, key: tuple[int, ...]) -> bool:
        return all(mine is None or mine == given for mine, given in zip(self.key, key, strict=True))

    tensors: tuple[str, ...]  # its parameters, in order


def config_int(value: object, name: str) -> int:
    """A configuration value as the launch function takes it."""
    if isinstance(value, bool) or value is None:
        return int(bool(value))
    if isinstance(value, int):
        return value
    if isinstance(value, enum.Enum) and isinstance(value.value, int):
        return value.value
    if isinstance(value, str) and value in DTYPE_ORDER:
        return DTYPE_ORDER.index(value)
    raise CompileError(
        f"configuration value {name}={value!r} is no int, bool, None, enum or dtype, so the "
        "launch function cannot take it; give premake such values"
    )


def write_dispatcher(
    kernel_name: str,
    output_dir: Path,
    key_names: list[str],
    variants: list[Variant],
    sources: list[Path],
    command: list[str],
    caller: str,
) -> Path:
    """`<kernel>.cpp`, `<kernel>.h` and `<kernel>.json` for `variants` (whose sources and headers
    are in `output_dir`), and `<kernel>.so` holding all of them; returns the library."""
    tensors = list(dict.fromkeys(name for v in variants for name in v.tensors))
    as_parameters = [Parameter(name, "tensor", "", 0) for name in tensors]
    c_names = dict(zip(tensors, c_parameters(as_parameters), strict=True))
    configs = [f"int {name}" for name in key_names]
    params = ["NineToothedStream stream", *(f"NineToothedTensor {c_names[t]}" for t in tensors)]
    signature = f"NineToothedResult launch_{kernel_name}({', '.join(params + configs)})"
    branches = []
    for variant in variants:
        condition = " && ".join(
            f"{name} == {value}"
            for name, value in zip(key_names, variant.key, strict=True)
            if value is not None
        )
        passed = ", ".join(["stream", *(c_names[t] for t in variant.tensors)])
        branches.append(
            f"  if ({condition or 'true'}) {{\n"
            f"    ntc_error = launch_{variant.name}_error;\n"
            f"    return launch_{variant.name}({passed});\n  }}"
        )
    values = ", ".join(f"{name}=%d" for name in key_names)
    includes = "".join(f'#include "{v.name}.h"\n' for v in variants)
    source = (
        f'#include <stdio.h>\n\n#include "{kernel_name}.h"\n{includes}\n'
        "static thread_local char ntc_message[512];\n"
        "static thread_local const char* (*ntc_error)(void) = nullptr;\n\n"
        f'extern "C" const char* launch_{kernel_name}_error(void) {{\n'
        "  return ntc_error ? ntc_error() : ntc_message;\n}\n\n"
        f'extern "C" {signature} {{\n' + "\n".join(branches) + "\n"
        "  ntc_error = nullptr;\n"
        f'  snprintf(ntc_message, sizeof ntc_message, "launch_{kernel_name}: no variant was '
        f'built for {values}; add a configuration with these values", '
        f"{', '.join(key_names) or '0'});\n"
        f"  return {REFUSED};\n}}\n"
    )
    (output_dir / f"{kernel_name}.h").write_text(declarations(kernel_name, signature))
    dispatcher = output_dir / f"{kernel_name}.cpp"
    dispatcher.write_text(source)
    manifest = {"kernel": kernel_name, "caller": caller, "configs": key_names}
    manifest["variants"] = [[v.name, list(v.key), list(v.tensors)] for v in variants]
    manifest["parameters"] = [_any_tensor(t) for t in tensors] + [
        {"name": name, "kind": "int", "dtype": "i32", "ndim": 0} for name in key_names
    ]
    (output_dir / f"{kernel_name}.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return build(command, [*sources, dispatcher], output_dir / f"{kernel_name}.so")


class VariantsKernel:
    """A library of variants called from Python: `kernel(*tensors, *configuration values)`. The
    variant the values choose checks the tensors (its element types, its dims) before the
    library's own launch function picks it again and runs it."""

    def __init__(self, output_dir: str | Path, kernel_name: str, described: dict):
        self.kernel_name = kernel_name
        self.caller = described["caller"]
        self.configs = described["configs"]
        self.dispatcher = AotKernel(output_dir, kernel_name)
        self.tensors = [p["name"] for p in described["parameters"] if p["kind"] != "int"]
        self.variants = [
            (Variant(name, tuple(key), tuple(names)), AotKernel(output_dir, name))
            for name, key, names in described["variants"]
        ]

    def __call__(self, *args) -> None:
        count = len(args) - len(self.configs)
        if count < 0:
            raise LaunchError(
                f"launch_{self.kernel_name} takes its tensors, then {', '.join(self.configs)}; "
                f"got {len(args)} values"
            )
        values = args[count:]
        key = tuple(config_int(v, n) for v, n in zip(values, self.configs, strict=True))
        # The first that matches, as the launch function tries them.
        found = next((pair for pair in self.variants if pair[0].chosen_by(key)), None)
        if found is None:
            given = ", ".join(f"{n}={v!r}" for n, v in zip(self.configs, values, strict=True))
            raise LaunchError(
                f"launch_{self.kernel_name}: no variant was built for {given}; add a "
                "configuration with these values"
            )
        variant, library = found
        kept = []
        packed = library.packed(args[:count], {}, kept)
        by_name = dict(zip(variant.tensors, packed, strict=True))
        passed = [by_name.get(name, NineToothedTensor(None, None, None)) for name in self.tensors]
        result = self.dispatcher.launch(stream_of(self.caller), *passed, *key)
        check_result(result, self.kernel_name, self.dispatcher.error)


def _any_tensor(name: str) -> dict:
    """A tensor parameter whose element type and dims the chosen variant decides."""
    return {"name": name, "kind": "tensor", "dtype": "", "ndim": 0}
