"""An ahead-of-time kernel's shared library: built from its files, and loaded back into Python as
a callable that takes what the kernel's Python handle takes (tensors, numbers) and passes them by
the C calling convention, as a C++ caller would."""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import torch

from compiler.errors import CompileError
from compiler.runtime.aot.launch import NO_DRIVER, REFUSED
from compiler.runtime.bindings import TORCH_DTYPES, LaunchError
from compiler.runtime.cuda_launcher import scalar_cell

_MISSING = object()  # a constexpr parameter not passed


class NineToothedTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("shape", ctypes.POINTER(ctypes.c_uint64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
    ]


def build(command: list[str], sources: list[Path], library: Path) -> Path:
    """`sources` compiled by `command` into `library` (object files among them linked as they
    are, whatever language `command` says its sources are in); the compiler's complaint is an
    error."""
    compiled = [str(path) for path in sources if path.suffix != ".o"]
    linked = [str(path) for path in sources if path.suffix == ".o"]
    done = subprocess.run(
        [*command, *compiled, *(["-x", "none", *linked] if linked else []), "-o", str(library)],
        capture_output=True,
        text=True,
        errors="replace",
    )
    if done.returncode != 0:
        raise CompileError(
            f"{Path(command[0]).name} rejected {', '.join(map(str, sources))}:\n"
            f"{done.stderr.strip()[-3000:]}\nthe "
            "ahead-of-time form of this backend (compiler/runtime/aot/) produced the failing line"
        )
    return library


def check_result(result: int, kernel_name: str, error) -> None:
    """Raise LaunchError for a launch's nonzero result; `error` is its library's error function."""
    if result == REFUSED:
        raise LaunchError(error().decode())
    if result == NO_DRIVER:
        raise LaunchError(
            f"launch_{kernel_name}: no CUDA driver (libcuda.so.1) on this machine; run it where "
            "a GPU is, or build it for caller='cpu'"
        )
    if result != 0:
        raise LaunchError(f"launch_{kernel_name} failed with CUDA error {result}")


def loaded(directory: Path, kernel_name: str) -> ctypes.CDLL:
    """`<kernel>.so` of `directory`, loaded from a copy, so it may be rebuilt while in use."""
    with tempfile.NamedTemporaryFile(suffix=".so") as copy:
        shutil.copy(directory / f"{kernel_name}.so", copy.name)
        return ctypes.CDLL(copy.name)


def stream_of(caller: str) -> int | None:
    return torch.cuda.current_stream().cuda_stream if caller == "cuda" else None


class AotKernel:
    """`launch_<kernel>` of a built library, called from Python."""

    def __init__(self, output_dir: str | Path, kernel_name: str):
        directory = Path(output_dir)
        manifest = directory / f"{kernel_name}.json"
        if not manifest.is_file():
            raise CompileError(
                f"{manifest}: no such file; build the kernel first (make(..., caller=...) or "
                "ntc aot)"
            )
        described = json.loads(manifest.read_text())
        self.kernel_name = kernel_name
        self.caller = described["caller"]
        self.parameters = described["parameters"]
        self.library = loaded(directory, kernel_name)
        self.launch = getattr(self.library, f"launch_{kernel_name}")
        self.launch.restype = ctypes.c_int
        self.launch.argtypes = [ctypes.c_void_p] + [
            ctypes.c_int if p["kind"] == "int" else NineToothedTensor for p in self.parameters
        ]
        self.error = getattr(self.library, f"launch_{kernel_name}_error")
        self.error.restype = ctypes.c_char_p

    def __call__(self, *args, **kwargs) -> None:
        """Launch on `args` (and parameters by name in `kwargs`); a constexpr parameter may be
        left out, and where it is given, it must have the value the library was built for."""
        kept = []  # what the structures point into, alive until the launch returns
        structures = self.packed(args, kwargs, kept)
        stream = stream_of(self.caller)
        check_result(self.launch(stream, *structures), self.kernel_name, self.error)

    def packed(self, args: tuple, kwargs: dict, kept: list) -> list:
        """The launch function's arguments for these values (after the stream); raises
        LaunchError where one does not fit its parameter. `kept` gets what they point into."""
        pairs = zip(self.parameters, self._bound(args, kwargs), strict=True)
        return [self._pass(p, value, kept) for p, value in pairs]

    def _bound(self, args: tuple, kwargs: dict) -> list:
        names = [p["name"] for p in self.parameters]
        unknown = sorted(set(kwargs) - set(names[len(args) :]))
        if len(args) > len(names) or unknown:
            raise LaunchError(
                f"launch_{self.kernel_name} takes {', '.join(names)}; got {len(args)} values "
                f"and {', '.join(kwargs) or 'no names'}"
            )
        bound = [*args, *(kwargs.get(n, _MISSING) for n in names[len(args) :])]
        for p, value in zip(self.parameters, bound, strict=True):
            if value is _MISSING and p["kind"] != "constexpr":
                raise LaunchError(f"launch_{self.kernel_name} is missing {p['name']!r}")
        return bound

    def _pass(self, parameter: dict, value: object, kept: list) -> NineToothedTensor:
        name, kind, dtype = parameter["name"], parameter["kind"], parameter["dtype"]
        where = f"launch_{self.kernel_name} parameter {name!r}"
        if kind == "constexpr":
            built = parameter.get("value")
            given = value.item() if isinstance(value, torch.Tensor) else value
            if value is not _MISSING and built is not None and given != built:
                raise LaunchError(
                    f"{where} was compiled in as {built!r}, and {given!r} was passed; build the "
                    "kernel again for that value"
                )
            return NineToothedTensor(None, None, None)
        if kind == "int":  # a configuration value of a library of variants (variants.py)
            return ctypes.c_int(value)
        if kind == "tensor":
            if not isinstance(value, torch.Tensor):
                raise LaunchError(f"{where} needs a tensor, got {type(value).__name__}")
            ndim = parameter["ndim"]
            if dtype and (TORCH_DTYPES.get(value.dtype) != dtype or value.ndim != ndim):
                raise LaunchError(
                    f"{where} was built for {parameter['ndim']}-dim {dtype} tensors, got a "
                    f"{value.ndim}-dim {value.dtype} one; convert it, or build it again"
                )
            if value.device.type != self.caller:
                raise LaunchError(f"{where} is on {value.device}; the kernel runs on {self.caller}")
            shape = (ctypes.c_uint64 * value.ndim)(*value.shape)
            strides = (ctypes.c_int64 * value.ndim)(*value.stride())
            kept += [shape, strides, value]
            return NineToothedTensor(value.data_ptr(), shape, strides)
        number = value.item() if isinstance(value, torch.Tensor) else value
        # What `data` points at (launch.PASSED_TYPES): the scalar as a kernel takes it, but a
        # float32 as a double (NineToothed's convention).
        cell = (ctypes.c_double if dtype == "f32" else scalar_cell(dtype))(number)
        kept.append(cell)
        return NineToothedTensor(ctypes.addressof(cell), None, None)
