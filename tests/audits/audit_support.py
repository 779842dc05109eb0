"""Helpers the lowering-audit tests share (a module name no other test folder uses)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from audits.config import AuditConfig, config_from_table
from audits.engine import audit_source

REPOSITORY = Path(__file__).resolve().parents[2]
FIXTURE_PROJECT = REPOSITORY / "tests" / "fixtures" / "audit_project"

# A registry like the compiler's, so that the examples do not depend on it.
EXAMPLE_REGISTRY = frozenset(
    {
        "arith.add", "arith.mul", "arith.max", "arith.constant", "math.exp", "math.exp2",
        "reduce.sum", "reduce.max", "linalg.dot", "select.where", "mem.load", "mem.store",
        "index.program_id", "scf.for", "scf.yield",
    }
)  # fmt: skip
SHARED_PATH = "compiler/passes/example.py"


def audit_snippet(
    source: str, path: str = SHARED_PATH, config: AuditConfig | None = None, **table
) -> list:
    """Findings for a snippet audited as the file `path` (a shared pass by default)."""
    config = config or config_from_table(table, root=REPOSITORY)
    return audit_source(textwrap.dedent(source), config, path, EXAMPLE_REGISTRY)


def codes(findings) -> set[str]:
    return {finding.code for finding in findings}
