"""Helpers the lowering-audit tests share (a module name no other test folder uses)."""

from __future__ import annotations

import importlib.util
import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

from audits.config import AuditConfig, config_from_table, load_config
from audits.engine import audit_source

REPOSITORY = Path(__file__).resolve().parents[2]
FIXTURE_PROJECT = REPOSITORY / "tests" / "fixtures" / "audit_project"
# Another compiler, installed as a test dependency: NineToothed under audits/reuse/ninetoothed.toml.
NINETOOTHED_SITE = Path(importlib.util.find_spec("ninetoothed").origin).parents[1]
NINETOOTHED_CONFIG = replace(
    load_config(REPOSITORY / "audits" / "reuse" / "ninetoothed.toml"), root=NINETOOTHED_SITE
)

# A registry like the compiler's, so that the examples do not depend on it.
EXAMPLE_REGISTRY = frozenset(
    {
        "arith.add", "arith.mul", "arith.max", "arith.constant", "math.exp", "math.exp2",
        "reduce.sum", "reduce.max", "linalg.dot", "select.where", "mem.load", "mem.store",
        "index.program_id", "scf.for", "scf.yield",
    }
)  # fmt: skip
SHARED_PATH = "compiler/passes/example.py"


def copy_project(destination: Path) -> Path:
    """The compiler and the audits copied to `destination`, for a plant to edit."""
    ignore = shutil.ignore_patterns("__pycache__")
    for folder in ("compiler", "audits"):
        shutil.copytree(REPOSITORY / folder, destination / folder, ignore=ignore)
    return destination


def audit_snippet(
    source: str, path: str = SHARED_PATH, config: AuditConfig | None = None, **table
) -> list:
    """Findings for a snippet audited as the file `path` (a shared pass by default)."""
    config = config or config_from_table(table, root=REPOSITORY)
    return audit_source(textwrap.dedent(source), config, path, EXAMPLE_REGISTRY)


def codes(findings) -> set[str]:
    return {finding.code for finding in findings}
