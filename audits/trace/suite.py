"""The trace audit over this repository's compiler: every suite kernel on every backend present.

`compile_suite` builds each kernel of `compiler.suite.SUITE` with `compiler.suite.checking.build`
for each backend of `compiler.backends.TARGETS` and compiles it on the kernel's own example
arguments, without running it. The compiler is imported only here, so the rest of the audit
package works in projects without it.
"""

from __future__ import annotations

from collections.abc import Iterable

from audits.config import ConfigError
from audits.findings import Finding
from audits.trace.audit import audit_traces
from audits.trace.checks import finding, location
from audits.trace.rules import TRACE_INTEGRITY


def compile_suite(
    backends: Iterable[str] | None = None, kernels: Iterable[str] | None = None
) -> tuple[dict, dict, list[Finding]]:
    """({backend: {kernel: Artifact}}, {backend: Target}, a finding per failed compilation)."""
    from compiler.backends import TARGETS
    from compiler.suite import SUITE
    from compiler.suite.checking import build

    backends = _known("backend", backends, TARGETS)
    kernels = _known("kernel", kernels, SUITE)
    artifacts, failures = {backend: {} for backend in backends}, []
    for backend in backends:
        for name in kernels:
            kernel = SUITE[name]
            try:
                handle = build(kernel, backend)
                artifact = handle.compile(*kernel.make_args(0), **kernel.call_kwargs)
            except Exception as error:  # reported as a finding: the audit still covers the rest
                what = f"{name} does not compile for {backend}: {type(error).__name__}: {error}"
                failures.append(finding(TRACE_INTEGRITY, location(backend, name), 1, what, "build"))
            else:
                artifacts[backend][name] = artifact
    return artifacts, {backend: TARGETS[backend] for backend in backends}, failures


def audit_suite(
    backends: Iterable[str] | None = None, kernels: Iterable[str] | None = None
) -> list[Finding]:
    artifacts, targets, failures = compile_suite(backends, kernels)
    return sorted(failures + audit_traces(artifacts, targets))


def _known(kind: str, wanted: Iterable[str] | None, present: dict) -> list[str]:
    names = sorted(present) if wanted is None else list(dict.fromkeys(wanted))
    unknown = [name for name in names if name not in present]
    if unknown:
        known = ", ".join(sorted(present))
        raise ConfigError(f"no {kind} named {', '.join(unknown)}; known: {known}")
    return names
