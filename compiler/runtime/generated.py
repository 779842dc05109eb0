"""What a generated module (compiler/frontend/generation.py) runs on: `GeneratedKernel`, one
compiled configuration launched as a kernel handle launches it (one plan per call signature,
checked when first seen), and `with_auto_tuning`, which calls whichever of several configurations
is fastest for the arguments given (NineToothed's `ninetoothed.auto_tuner.AutoTuner`)."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from compiler.backends.artifact import Artifact
from compiler.dsl.auto_tuner import AutoTuner
from compiler.frontend.call_signature import (
    BUFFER,
    CONSTANT,
    alignment,
    reading,
    signature_reader,
)
from compiler.frontend.layouts import argument_bindings
from compiler.runtime.bindings import LaunchError
from compiler.runtime.plan import LaunchPlan
from compiler.runtime.positional import positional_call


class GeneratedKernel:
    def __init__(self, parameters: Mapping[str, str], constants: Mapping[str, object], **artifact):
        """`parameters`: the application's parameter names, in order, each with its kind (a
        BUFFER, NUMBER or CONSTANT of compiler/frontend/call_signature.py); `constants`: the
        value each CONSTANT was compiled with; `artifact`: the compiled kernel's fields
        (compiler/backends/artifact.py; its trace left out)."""
        self.artifact = Artifact(trace=[], **artifact)
        self.constants = dict(constants)
        self.names = list(parameters)
        self._constexprs = {name for name, kind in parameters.items() if kind == CONSTANT}
        self._buffers = [name for name, kind in parameters.items() if kind == BUFFER]
        self._read = signature_reader(
            reading(list(parameters.values()), alignment(artifact["backend"], artifact["device"]))
        )
        self._calls: dict[tuple, object] = {}

    def __call__(self, *args) -> None:
        try:
            key, pointers = self._read(args)
            call = self._calls.get(key)
        except (AttributeError, TypeError, ValueError, RuntimeError):
            key = call = None  # arguments no key describes: checked and planned each call
        if call is not None:
            call(args, pointers, 2)
            return
        self._check(args)
        bindings = argument_bindings(self.names, self._constexprs, args)
        plan = LaunchPlan(self.artifact, bindings)
        call = positional_call(plan, self.names, self._buffers, bindings)
        if key is not None and call is not None:
            self._calls[key] = call
        plan(bindings, stacklevel=2)

    def _check(self, args: tuple) -> None:
        name = self.artifact.kernel_name
        if len(args) != len(self.names):
            raise LaunchError(
                f"{name} takes {len(self.names)} arguments ({', '.join(self.names)}), got "
                f"{len(args)}; pass them by position"
            )
        for parameter, value in zip(self.names, args, strict=True):
            if parameter in self._buffers and not isinstance(value, torch.Tensor):
                raise LaunchError(
                    f"{name}: argument for {parameter} must be a torch.Tensor, got "
                    f"{type(value).__name__}"
                )
            if parameter in self.constants and value not in (None, self.constants[parameter]):
                raise LaunchError(
                    f"{name}: constexpr {parameter} was compiled as "
                    f"{self.constants[parameter]!r}, and this call gives {value!r}; generate "
                    "the module from a kernel made with that value"
                )


def with_auto_tuning(*configurations: GeneratedKernel) -> AutoTuner:
    """The fastest of `configurations` for each argument key, timed once per key."""
    return AutoTuner(configurations, [_spelled(k.artifact) for k in configurations])


def _spelled(artifact: Artifact) -> str:
    options = {**artifact.schedule, "num_warps": artifact.num_warps}
    options |= {"num_stages": artifact.num_stages}
    return f"{artifact.ssa_hash} " + ",".join(f"{k}={v}" for k, v in options.items())
