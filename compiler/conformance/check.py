"""Run a form on a backend and on the IR interpreter, and compare.

Integer and boolean results, and every `arith`/`select` result, must match bit for bit (NaN where
NaN; which zero max and min give from +0.0 and -0.0 is left open, as IEEE's maxNum leaves it);
other float results (`math` functions, scans, whose order of summation is the backend's) to 1e-5
relative or 1e-6 absolute in f32 (a flushed 1e-30 is close), 1e-2 or 5e-2 in f16, NaN where NaN
and infinities equal. A form that does not compile or run on a backend is a mismatch too. A form
the type rule accepts but the interpreter does not define (a bitwise `and` of floats) has no
oracle and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import torch

from compiler.conformance.forms import Form, forms
from compiler.conformance.inputs import LENGTH, NUMPY, TORCH, arguments
from compiler.ir import parse_kernel
from compiler.ir.interpreter import run_kernel
from compiler.ir.registry import OPS

_TOLERANCE = {"f32": (1e-5, 1e-6), "f16": (1e-2, 5e-2), "f64": (1e-13, 1e-15)}  # relative, absolute
_EXACT_DIALECTS = ("arith", "select")


@dataclass(frozen=True)
class Mismatch:
    form: Form
    backend: str
    what: str

    def __str__(self) -> str:
        return f"{self.form} on {self.backend}: {self.what}"


def conform(op: str, backends: Iterable[str], seed: int = 0) -> list[Mismatch]:
    """Every form of `op` on every backend against the interpreter."""
    if op not in OPS:
        raise KeyError(f"{op} is not an op of the registry (compiler/ir/registry.py)")
    mismatches = []
    for form in forms(OPS[op]):
        kernel = parse_kernel(form.kernel_text())
        inputs = arguments(form.operands, seed)
        try:
            want = _interpreted(kernel, form, inputs)
        except (TypeError, ValueError):  # the type rule allows what the oracle does not define
            continue
        for backend in backends:
            got = _launched(kernel, form, inputs, backend)
            if isinstance(got, str):
                mismatches.append(Mismatch(form, backend, got))
                continue
            difference = _first_difference(form, inputs, got, want)
            if difference:
                mismatches.append(Mismatch(form, backend, difference))
    return mismatches


def _interpreted(kernel, form: Form, inputs: list[np.ndarray]) -> np.ndarray:
    out = np.zeros(LENGTH, NUMPY[form.result])
    args = {f"a{i}": x.copy() for i, x in enumerate(inputs)} | {"out": out, "n": LENGTH}
    with np.errstate(all="ignore"):
        run_kernel(kernel, args, grid=-(-LENGTH // 64))
    return args["out"]


def _launched(kernel, form: Form, inputs: list[np.ndarray], backend: str) -> np.ndarray | str:
    from compiler.backends import lower_unified_ssa_artifact
    from compiler.runtime import launch

    out = _poisoned(form.result)
    bindings = {f"a{i}": torch.from_numpy(x.copy()) for i, x in enumerate(inputs)}
    bindings |= {"out": out, "n": LENGTH}
    try:
        launch(lower_unified_ssa_artifact(kernel, backend), bindings)
    except Exception as error:  # a form the backend cannot take is a finding, not a crash
        return f"does not compile or run: {type(error).__name__}: {str(error)[:300]}"
    return out.numpy()


def _poisoned(dtype: str) -> torch.Tensor:
    if dtype in ("f32", "f16", "f64"):
        return torch.full((LENGTH,), float("nan"), dtype=TORCH[dtype])
    return torch.full(
        (LENGTH,), 1 if dtype == "i1" else 123 if dtype == "u8" else -12345, dtype=TORCH[dtype]
    )


def _first_difference(form: Form, inputs, got: np.ndarray, want: np.ndarray) -> str:
    if form.result in _TOLERANCE and not form.op.startswith(_EXACT_DIALECTS):
        relative, absolute = _TOLERANCE[form.result]
        close = np.isclose(got, want, rtol=relative, atol=absolute, equal_nan=True)
        close |= (got == want) | (np.isnan(got) & np.isnan(want))
    elif form.result in _TOLERANCE:
        close = (got.view(_bits(form.result)) == want.view(_bits(form.result))) | (
            np.isnan(got) & np.isnan(want)
        )
        if form.op in _ZERO_SIGN_UNSPECIFIED:
            close |= got == want  # +0.0 and -0.0 compare equal
    else:
        close = got == want
    if close.all():
        return ""
    at = int(np.flatnonzero(~close)[0])
    operands = ", ".join(repr(x[at].item()) for x in inputs)
    return f"element {at} of {LENGTH}: got {got[at]!r}, want {want[at]!r} (operands {operands})"


# Which zero max and min give for +0.0 and -0.0 is left open, as by IEEE 754-2008's maxNum and
# minNum, C's fmax and fmin, LLVM's maxnum and minnum and so Triton: C compilers and GPUs differ.
_ZERO_SIGN_UNSPECIFIED = ("arith.max", "arith.min")


def _bits(dtype: str):
    return {"f64": np.uint64, "f32": np.uint32}.get(dtype, np.uint16)
