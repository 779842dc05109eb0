"""Passes over the SSA IR: a registry with categories, pipeline strings, and a verifying manager.

The folder reads as the pipeline does. Here: `base.py` (the pass record, its context and
categories), `registry.py` (registration, the default pipeline, pipeline strings) and `manager.py`
(runs passes, verifies after each, records the trace). Then one folder per category of
`ntc passes`: `hardware_independent/`, `hardware_dependent/` and `backend_specific/`, each with
one file per registered pass, or one folder where a pass has helpers only it uses (the file named
after the folder is the pass). `helpers/` holds what several passes share. Backends register
their own `ssa.<backend>.*` passes from `compiler.backends.<backend>`.

Importing this package registers every pass defined here.
"""

from compiler.passes import backend_specific, hardware_dependent, hardware_independent
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
    "backend_specific",
    "default_pipeline",
    "get",
    "hardware_dependent",
    "hardware_independent",
    "parse_pipeline",
    "register",
    "trace_to_json",
]
