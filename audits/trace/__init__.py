"""The pass-trace audit: invariants of compiled artifacts, as pure functions over their traces."""

from audits.trace.audit import audit_traces
from audits.trace.rules import TRACE_RULES

__all__ = ["TRACE_RULES", "audit_traces"]
