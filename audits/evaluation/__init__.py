"""Constant evaluation for the audit: the values that names, joins, formats and decoders build."""

from audits.evaluation.bindings import ProjectBindings
from audits.evaluation.evaluator import EvaluationState, Evaluator, Origin
from audits.evaluation.scopes import ScopeTracker
from audits.evaluation.values import UNKNOWN, Opaque, as_text, excerpt, is_known

__all__ = [
    "UNKNOWN",
    "EvaluationState",
    "Evaluator",
    "Opaque",
    "Origin",
    "ProjectBindings",
    "ScopeTracker",
    "as_text",
    "excerpt",
    "is_known",
]
