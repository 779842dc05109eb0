"""Backends: one `Target` record per language, the shared emitter, and lowering to an artifact."""

from compiler.backends.artifact import Artifact, build_artifact
from compiler.backends.emitter import EmitError, emit
from compiler.backends.lowering import lower_unified_ssa_artifact
from compiler.backends.registry import TARGETS, get_target
from compiler.backends.target import OpText, Target

__all__ = [
    "TARGETS",
    "Artifact",
    "EmitError",
    "OpText",
    "Target",
    "build_artifact",
    "emit",
    "get_target",
    "lower_unified_ssa_artifact",
]
