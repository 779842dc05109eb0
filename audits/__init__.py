"""Lowering audits: keep every change on the generic-IR path.

Two audits share one `Finding` record:

- the code audit (`audit_project`) reads Python sources with libcst and flags operator-specific
  lowering, kernels written as text, op names outside the IR's closed registry and backend-name
  flags in shared code;
- the trace audit (`audit_traces`) reads the pass traces of compiled artifacts and checks that
  every kernel on every backend ran the same pipeline, stayed verified and never rose in IR level,
  and that the emitted code came from the shared SSA.
"""

from audits.config import AuditConfig, ConfigError, load_config
from audits.engine import AuditReport, NoFilesScanned, audit_project
from audits.findings import Finding
from audits.trace import audit_traces

__all__ = [
    "AuditConfig",
    "AuditReport",
    "ConfigError",
    "Finding",
    "NoFilesScanned",
    "audit_project",
    "audit_traces",
    "load_config",
]
