"""`make(...)` and `jit`: a callable kernel that specialises on argument dtypes and constexpr
values, compiles each specialisation once (frontend -> passes -> backend) and launches it."""

from __future__ import annotations

import inspect
import numbers
import operator

import torch

from compiler.backends.lowering import lower_unified_ssa_artifact
from compiler.backends.registry import get_target
from compiler.dsl.symbol import Expr, Symbol
from compiler.dsl.tensor import Tensor
from compiler.errors import CompileError
from compiler.frontend.application import default_kernel_name, parameters
from compiler.frontend.arranging import arrange
from compiler.frontend.build import ArgSpec, build_kernel, constexpr_symbols, meta_symbols
from compiler.frontend.call_signature import (
    BUFFER,
    CONSTANT,
    NUMBER,
    alignment,
    keyword_key,
    number_dtype,
    reading,
    signature_reader,
)
from compiler.frontend.dtypes import TORCH_TO_IR, ir_dtype
from compiler.frontend.layouts import (
    argument_bindings,
    argument_layout,
    check_declared_sizes,
    check_jagged,
)
from compiler.frontend.tuning import MODES, call_tuner, wants_tuner
from compiler.runtime.plan import LaunchPlan
from compiler.runtime.positional import guarded_call, positional_call

# Launch plans a handle keeps (the oldest goes first): one per signature seen, a few in practice.
MOST_PLANS = 256


class KernelHandle:
    def __init__(
        self,
        arrangement,
        application,
        tensors,
        *,
        backend: str = "triton",
        device: str | None = None,
        kernel_name: str | None = None,
        num_warps: int | None = None,
        num_stages: int | None = None,
        autotune: str = "auto",
        configs: list[dict] | None = None,
        max_num_configs: int | None = None,
    ):
        self.application = application
        self.backend = backend
        # The accelerator when there is one, else the CPU (every backend has a CPU form).
        accelerator = torch.accelerator.current_accelerator()
        self.device = device or (accelerator.type if accelerator else "cpu")
        self.kernel_name = kernel_name or default_kernel_name(application, backend)
        if autotune not in MODES:
            raise CompileError(f"autotune={autotune!r}: choose one of {', '.join(MODES)}")
        # Candidate schedules for measured autotuning (see
        # compiler/passes/hardware_dependent/select_schedule/autotune.py).
        self.autotune = autotune
        self.schedule_options = {
            k: v
            for k, v in (
                ("num_warps", num_warps),
                ("num_stages", num_stages),
                ("configs", configs),
                ("max_num_configs", max_num_configs),
            )
            if v
        }
        self.names = parameters(application)
        self._parameters = frozenset(self.names)
        self.tensors, self.arranged = arrange(arrangement, application, tuple(tensors))
        self.constexpr_parameters = frozenset(
            name for name, tensor in zip(self.names, self.tensors, strict=True) if tensor.constexpr
        )
        self.constexpr_names = constexpr_symbols(self.arranged)
        self.meta_names = {s.name for s in meta_symbols(self.arranged)}
        self._artifacts: dict[tuple, object] = {}
        # call signature -> (compiled artifact, LaunchPlan, its positional call)
        self._plans: dict[tuple, tuple] = {}
        # The last signature planned: its plan's call, guarded by the key (positional.py).
        self._recent, self._recent_artifact = _unplanned, None
        self._kinds = [
            CONSTANT if tensor.constexpr else BUFFER if in_memory(tensor, arranged) else NUMBER
            for tensor, arranged in zip(self.tensors, self.arranged, strict=True)
        ]
        self._buffers = [
            name for name, kind in zip(self.names, self._kinds, strict=True) if kind == BUFFER
        ]
        self._read_signature = self._first_read  # the reader is written on the first launch
        self.last = None

    def __getstate__(self) -> dict:
        """A copy for another process (a pool's worker) plans its launches anew: plans are code
        generated in this one. Its compiled artifacts go with it."""
        plans = {"_plans": {}, "_recent": _unplanned, "_read_signature": self._first_read}
        return {**vars(self), **plans, "_recent_artifact": None}

    def _first_read(self, args: tuple) -> tuple:
        """Writes the signature reader (`call_signature.py`) and reads `args` with it: a handle
        that is only compiled never needs one. The guarded calls of its plans read as it does."""
        self._reading = reading(self._kinds, alignment(self.backend, self.device))
        self._read_signature = signature_reader(self._reading)
        return self._read_signature(args)

    # -- specialisation ----------------------------------------------------------------------------

    def _specs(self, args: tuple) -> list[ArgSpec]:
        if len(args) != len(self.tensors):
            raise CompileError(
                f"{self.kernel_name} takes {len(self.tensors)} arguments, got {len(args)}"
            )
        specs = []
        for name, tensor, arranged, arg in zip(
            self.names, self.tensors, self.arranged, args, strict=True
        ):
            buffer = in_memory(tensor, arranged)
            if tensor.constexpr:
                specs.append(ArgSpec("constant", value=arg if arg is not None else tensor.value))
            elif isinstance(arg, torch.Tensor) and buffer:
                check_jagged(name, tensor, arg)
                check_declared_sizes(name, tensor, arg)
                specs.append(ArgSpec("tensor", _tensor_dtype(name, arg)))
            elif isinstance(arg, numbers.Number) and tensor.ndim == 0:
                dtype = ir_dtype(tensor.dtype) if tensor.dtype else number_dtype(arg)
                specs.append(ArgSpec("scalar", dtype))
            else:
                raise CompileError(
                    f"argument for {name} must be a torch.Tensor with {tensor.ndim} dims"
                    if buffer
                    else f"argument for {name} must be a Python number, got {type(arg).__name__}"
                )
        return specs

    def bind_arguments(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Parameters may also be passed by name (NineToothed's launch accepts both)."""
        names = self.names
        if twice := [name for name in names[: len(args)] if name in kwargs]:
            given = ", ".join(twice)
            raise CompileError(f"{self.kernel_name}: {given} given by position and by name")
        by_name = {k: kwargs.pop(k) for k in list(kwargs) if k in names[len(args) :]}
        missing = [n for n in names[len(args) :] if n not in by_name]
        if missing:
            raise CompileError(f"{self.kernel_name} is missing argument(s) {', '.join(missing)}")
        return tuple(args) + tuple(by_name[n] for n in names[len(args) :]), kwargs

    def shape_constexprs(self, args: tuple) -> dict[str, int]:
        """Sizes declared constexpr (`shape_options={"constexpr": True}`) come from the tensors."""
        bound = {}
        for tensor, arg in zip(self.tensors, args, strict=True):
            if isinstance(arg, torch.Tensor):
                for size, actual in zip(tensor.shape, argument_layout(arg)[1], strict=False):
                    if getattr(size, "constexpr", False) and not size.meta:
                        bound[size.name] = int(actual)
        return bound

    def _split_kwargs(self, kwargs: dict, bound: dict) -> tuple[dict, dict]:
        constexprs, metas = dict(bound), {}
        for key, value in kwargs.items():
            value = self._integer(key, value)
            if key in self.meta_names:
                metas[key] = value
            elif key in self.constexpr_names:
                constexprs[key] = value
            else:
                valid = sorted(self.constexpr_names) + sorted(self.meta_names)
                raise CompileError(
                    f"{self.kernel_name} has no constexpr or meta parameter {key!r}; "
                    f"valid keyword arguments: {', '.join(valid) or 'none'}"
                )
        missing = sorted(set(self.constexpr_names) - set(constexprs))
        if missing:
            raise CompileError(
                f"{self.kernel_name} needs the constexpr keyword argument(s) {', '.join(missing)}"
            )
        return constexprs, metas

    def _integer(self, key: str, value: object) -> int | Expr:
        """A constexpr or meta keyword's value as an int (a symbol stays one: `compile_declared`
        keeps sizes symbolic)."""
        if isinstance(value, Expr):
            return value
        try:
            return operator.index(value)
        except TypeError:
            raise CompileError(
                f"{self.kernel_name}: {key}={value!r} is not an integer; constexpr and meta "
                f"parameters take ints (e.g. {key}=64)"
            ) from None

    def compile_specs(self, specs: list[ArgSpec], constexprs: dict, metas: dict, tuner=None):
        """`tuner`: times candidate schedules for the meta symbols `metas` leaves open; the
        artifact then holds for these shapes only, so `tuner.identity` joins the cache key."""
        key = (tuple(specs), tuple(sorted(constexprs.items())), tuple(sorted(metas.items())))
        key += (tuner.identity,) if tuner else ()
        if key not in self._artifacts:
            kernel = build_kernel(
                self.kernel_name, self.application, self.arranged, specs, constexprs
            )
            options = {**self.schedule_options, **metas}
            self._artifacts[key] = lower_unified_ssa_artifact(
                kernel,
                self.backend,
                device=self.device,
                options=options,
                tuner=tuner,
                given_away=True,  # built for this call alone
            )
        self.last = self._artifacts[key]
        return self.last

    def compile(self, *args, **kwargs):
        """The artifact (`.source`, `.ssa`, `.trace`) for these arguments, without running it.
        Open meta symbols are tuned by timing on these arguments where `autotune` says so."""
        args, kwargs = self.bind_arguments(args, dict(kwargs))
        constexprs, metas = self._split_kwargs(kwargs, self.shape_constexprs(args))
        specs = self._specs(args)
        tuner = None
        if set(self.meta_names) - set(metas) and wants_tuner(self.autotune, self.device):

            def compile_schedule(schedule: dict):
                return self.compile_specs(specs, constexprs, {**metas, **schedule})

            tuner = call_tuner(self, compile_schedule, args, kwargs)
        return self.compile_specs(specs, constexprs, metas, tuner)

    def compile_declared(self, default_dtype: str = "f32", launch: dict | None = None, **kwargs):
        """Compile without tensors (for `ntc compile`): declared dtypes, else `default_dtype`;
        `launch`: `num_warps`/`num_stages` over the handle's own (one configuration of several).
        Constexpr sizes not given stay compile-time parameters where the target has them (as
        NineToothed's `make` leaves them to Triton); elsewhere the error says which -D to give."""
        missing = [name for name in self.constexpr_names if name not in kwargs]
        defines = " ".join(f"-D {name}=N" for name in missing)
        # A constexpr parameter decides branches of the program: no backend keeps it open.
        unvalued = [
            name
            for name, tensor in zip(self.names, self.tensors, strict=True)
            if tensor.constexpr and tensor.value is None and name not in kwargs
        ]
        if unvalued:
            raise CompileError(
                f"{self.kernel_name}: the constexpr parameter(s) {', '.join(unvalued)} have no "
                "value, and the program is compiled for one; give them "
                f"({' '.join(f'-D {name}=N' for name in unvalued)})"
            )
        if missing and not get_target(self.backend, self.device).syntax.constexpr_param:
            raise CompileError(
                f"{self.kernel_name}: the {self.backend} backend needs the constexpr values "
                f"{', '.join(missing)} at compile time; give them ({defines})"
            )
        kwargs |= {name: Symbol(name, meta=True) for name in missing}  # kept symbolic
        specs = []
        for name, tensor, arranged in zip(self.names, self.tensors, self.arranged, strict=True):
            dtype = ir_dtype(tensor.dtype) if tensor.dtype else default_dtype
            if tensor.constexpr:
                specs.append(ArgSpec("constant", value=kwargs.pop(name, tensor.value)))
            else:
                kind = "tensor" if in_memory(tensor, arranged) else "scalar"
                specs.append(ArgSpec(kind, dtype))
        constexprs, metas = self._split_kwargs(kwargs, {})
        try:
            return self.compile_specs(specs, constexprs, metas | (launch or {}))
        except CompileError as error:
            if not missing:
                raise
            # Symbolic sizes compare equal only by name: `q_size_3` and `k_size_3` differ here.
            raise CompileError(
                f"{error.message} (with {', '.join(missing)} kept as compile-time parameters; "
                f"where sizes must agree, give them values: {defines})",
                filename=error.filename,
                line=error.line,
            ) from None

    def __call__(self, *args, **kwargs):
        """Launch on these arguments: planned on the first call of each signature (compiled,
        checked, its form chosen; `call_signature.py`), looked up on the next ones."""
        if self._recent(args, kwargs, 3):  # a loop's calls: one signature each time
            self.last = self._recent_artifact
            return
        if kwargs and not self._parameters.isdisjoint(kwargs):  # by name: as by position
            args, kwargs = self.bind_arguments(args, dict(kwargs))
        try:
            key, pointers = self._read_signature(args)
            if kwargs:
                key += keyword_key(kwargs)
            self.last, _, call = self._plans[key]
        except KeyError:  # a signature not seen yet
            call = None
        except (AttributeError, TypeError, ValueError, RuntimeError):  # one no key describes
            key = call = None
        if call is not None:
            call(args, pointers, 3)
            return
        artifact = self.compile(*args, **kwargs)
        bindings = self.bindings(*args, **kwargs)
        plan = LaunchPlan(artifact, bindings)
        call = positional_call(plan, self.names, self._buffers, bindings)
        if key is not None and call is not None:
            if len(self._plans) >= MOST_PLANS:
                del self._plans[next(iter(self._plans))]  # the oldest
            self._plans[key] = artifact, plan, call
            # A key was read, so `_first_read` wrote `_reading`.
            read, buffers = self._reading, self._buffers
            guarded = guarded_call(plan, self.names, buffers, bindings, read, key, kwargs)
            self._recent, self._recent_artifact = guarded or _unplanned, artifact
        plan(bindings, stacklevel=3)

    def bindings(self, *args, **kwargs) -> dict[str, object]:
        """Kernel argument name -> value: tensors with their sizes and strides, and numbers."""
        args, _ = self.bind_arguments(args, dict(kwargs))
        return argument_bindings(self.names, self.constexpr_parameters, args)

    @property
    def _source(self) -> str:
        """The path of this kernel's generated module, NineToothed's generated file: every
        configuration it tunes over, compiled for the declared dtypes (compiler/frontend/
        generation.py). Written when first asked for."""
        from compiler.frontend.generation import generated_module

        return str(generated_module(self))

    @property
    def source(self) -> str:
        return self._last().source

    @property
    def ssa(self) -> str:
        return self._last().ssa

    @property
    def trace(self) -> list:
        return self._last().trace

    def _last(self):
        if self.last is None:
            raise RuntimeError(f"{self.kernel_name} has not been compiled yet: call it first")
        return self.last


def _unplanned(args: tuple, kwargs: dict, stacklevel: int) -> bool:
    return False


def in_memory(tensor: Tensor, arranged: Tensor) -> bool:
    """A buffer, not a number: any tensor with dims, and a zero-dimensional one the arrangement
    makes tiles of (`output.unsqueeze(0).tile((1,))`)."""
    return tensor.ndim > 0 or arranged is not tensor


def make(arrangement, application, tensors, *, backend: str = "triton", **options):
    """NineToothed's `make` for Python callers: integrate an arrangement and an application into a
    kernel handle (`compiler.dsl.make` also builds kernels for other callers)."""
    allowed = {"kernel_name", "device", "num_warps", "num_stages", "max_num_configs"}
    allowed |= {"autotune", "configs"}  # ours: measured autotuning (compiler/frontend/tuning.py)
    unsupported = set(options) - allowed
    if unsupported:
        raise CompileError(f"make() got unknown options {sorted(unsupported)}")
    return KernelHandle(arrangement, application, tensors, backend=backend, **options)


def jit(func=None, *, backend: str = "triton", **options):
    """NineToothed's annotation style: parameters annotated with arranged tensors."""

    def wrap(application):
        return KernelHandle(*jit_program(application), backend=backend, **options)

    return wrap(func) if func is not None else wrap


def jit_program(application) -> tuple:
    """(arrangement, application, tensors) of an application annotated with arranged tensors."""
    annotations = inspect.get_annotations(application)
    params = list(inspect.signature(application).parameters)
    missing = [p for p in params if not isinstance(annotations.get(p), Tensor)]
    if missing:
        raise CompileError(f"jit needs a Tensor annotation on parameter(s) {missing}")
    arranged = tuple(annotations[p] for p in params)
    return (lambda *sources: arranged), application, [t.source for t in arranged]


def _tensor_dtype(name: str, tensor: torch.Tensor) -> str:
    if tensor.dtype not in TORCH_TO_IR:
        known = ", ".join(str(d).removeprefix("torch.") for d in TORCH_TO_IR)
        raise CompileError(
            f"argument for {name} has dtype {tensor.dtype}; convert it to one of {known}"
        )
    return TORCH_TO_IR[tensor.dtype]
