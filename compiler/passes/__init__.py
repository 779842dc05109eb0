"""Passes over the SSA IR: a registry with categories, pipeline strings, and a verifying manager.

Importing this package registers every pass defined here; backends register their own
`ssa.<backend>.*` passes from `compiler.backends.<backend>`.
"""

from compiler.passes import (
    analyze_effects,
    canonicalize,
    decompose_linalg,
    emulate_fp8,
    legalize_argument_dtypes,
    lower_backend_intrinsics,
    lower_memory_scopes,
    lower_parallel,
    lower_tiles_to_loops,
    normalize_loops,
    pipeline_loops,
    select_schedule,
    specialize_arguments,
    vectorize_accesses,
    wrap_grid,
)
from compiler.passes.base import CATEGORIES, Pass, PassContext, PassError
from compiler.passes.manager import PassManager, TraceEntry, trace_to_json
from compiler.passes.registry import all_passes, default_pipeline, get, parse_pipeline, register

__all__ = [
    "CATEGORIES",
    "Pass",
    "PassContext",
    "PassError",
    "PassManager",
    "TraceEntry",
    "all_passes",
    "analyze_effects",
    "canonicalize",
    "decompose_linalg",
    "emulate_fp8",
    "legalize_argument_dtypes",
    "lower_backend_intrinsics",
    "lower_memory_scopes",
    "lower_parallel",
    "lower_tiles_to_loops",
    "normalize_loops",
    "pipeline_loops",
    "select_schedule",
    "specialize_arguments",
    "vectorize_accesses",
    "wrap_grid",
    "default_pipeline",
    "get",
    "parse_pipeline",
    "register",
    "trace_to_json",
]
