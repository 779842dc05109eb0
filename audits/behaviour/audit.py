"""`audit_behaviour`: every behavioural check over cases × backends × configurations.

The checks (`CHECKS`), each a function of what the compiler does, not of how its code is spelled:

- `imports`: importing any compiler module rebinds nothing elsewhere (`imports.py`, own process);
- `purity`: the original compile reads nothing but its inputs (`purity.py`);
- `identity`: the renamed program lowers to the same thing (`identity.py`, `renaming.py`);
- `structure`: rewrites that change nothing computed keep the schedule (`structure.py`);
- `replay`: each pass and the emitter replay in a clean process (`replay.py`, one per backend);
- `provenance`: every word of the emitted source comes from the target record or the IR
  (`provenance.py`);
- `locality`: one op appended to the final SSA adds its spelling and changes nothing else
  (`locality.py`).

Findings point at `behaviour/<backend>/<kernel>/<configuration>:<stage>`, or, for purity and
imports, at the compiler's file and line that did it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from audits.behaviour import identity, locality, provenance, purity, replay, structure
from audits.behaviour.cases import (
    CONFIGURATIONS,
    DEFAULT_CONFIGURATIONS,
    GIVEN,
    SCHEDULED,
    Case,
    Configuration,
    compile_case,
    tuning_candidates,
)
from audits.behaviour.renaming import Renamed, rename_package
from audits.behaviour.rules import (
    CANNOT_COMPILE,
    CLEAN_ROOM_REPLAY,
    EMISSION_LOCALITY,
    IDENTITY_INVARIANCE,
    IMPORT_REBINDING,
    PROVENANCE,
    PURITY,
    STRUCTURE_STABILITY,
)
from audits.findings import Finding
from audits.rules.base import RuleInfo

CHECKS = ("imports", "purity", "identity", "structure", "replay", "provenance", "locality")
CANDIDATES = 2  # tuning candidates audited per kernel and backend
PACKAGE = "compiler"
FRONT_END = ("compiler/frontend", "compiler/dsl")


def audit_behaviour(
    cases: Sequence[Case],
    backends: Iterable[str],
    *,
    configurations: Iterable[str] = DEFAULT_CONFIGURATIONS,
    checks: Iterable[str] = CHECKS,
    root: Path | None = None,
    seed: int | None = None,
    candidates: int = CANDIDATES,
    progress=lambda text: None,
) -> list[Finding]:
    """Findings of `checks` for every case × backend × configuration (`given`, `scheduled`,
    `candidates`: up to `candidates` of the schedules autotuning would time, each given at the
    call). `root`: the project whose `compiler` package is audited (the working tree as it is, new
    files included); `seed`: of the renaming (random when None; the findings name it).
    `progress(text)` hears each step."""
    root = (root or Path.cwd()).resolve()
    checks = set(checks)
    unknown = (checks - set(CHECKS)) | (set(configurations) - set(CONFIGURATIONS))
    if unknown:
        known = ", ".join(CHECKS + CONFIGURATIONS)
        raise ValueError(f"unknown check(s) or configuration(s) {sorted(unknown)}; known: {known}")
    plan = _Plan(tuple(configurations), candidates)
    seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    findings: list[Finding] = []
    if "imports" in checks:
        progress("imports: every compiler module, one at a time, in a fresh process")
        findings += _import_findings(root)
    with tempfile.TemporaryDirectory(prefix="behaviour-") as work:
        renamings = _Renamings(cases, Path(work), seed)
        for backend in backends:
            findings += _audit_backend(cases, backend, plan, checks, root, renamings, progress)
    return sorted(set(findings))


class _Renamings:
    """Each case's package renamed, each package once, every kernel name of its cases mapped."""

    def __init__(self, cases: Sequence[Case], directory: Path, seed: int) -> None:
        self.directory = directory
        self.seed = seed
        self.kernel_names: dict[tuple, set[str]] = {}
        for case in cases:
            names = self.kernel_names.setdefault((case.folder, case.package), set())
            names.update([case.kernel_name] if case.kernel_name else [])
        self.made: dict[tuple, Renamed] = {}

    def of(self, case: Case) -> Renamed:
        key = (case.folder, case.package)
        if key not in self.made:
            target = self.directory / f"renamed-{len(self.made)}"
            target.mkdir()
            names = sorted(self.kernel_names[key])
            self.made[key] = rename_package(
                case.folder,
                case.package,
                target,
                extra_names=names,
                seed=self.seed,
                others=case.companions(),
            )
        return self.made[key]


@dataclass(frozen=True)
class _Plan:
    configurations: tuple[str, ...]
    candidates: int

    def each(self, case: Case, backend: str) -> list[Configuration]:
        """The configurations to audit `case` in (tuning candidates found by compiling it)."""
        found = []
        for name in self.configurations:
            if name not in case.configurations:
                continue
            if name == "candidates":
                scheduled = _compile(case, backend, SCHEDULED, what="the program (candidates)")
                found += tuning_candidates(scheduled, self.candidates)
            else:
                found.append(GIVEN if name == "given" else SCHEDULED)
        return found


def _audit_backend(cases, backend, plan: _Plan, checks, root, renamings, progress):
    findings, compiled = [], {}
    for case in cases:
        try:
            configurations = plan.each(case, backend)
        except _Uncompiled as error:
            where = f"behaviour/{backend}/{case.name}/candidates"
            findings.append(_finding(CANNOT_COMPILE, where, 1, str(error), "compile"))
            configurations = [c for c in (GIVEN, SCHEDULED) if c.label in plan.configurations]
        for configuration in configurations:
            label = configuration.label
            progress(f"{backend} {case.name} ({label})")
            where = f"behaviour/{backend}/{case.name}/{label}"
            try:
                found, artifact = _audit_case(case, backend, configuration, checks, root, renamings)
            except _Uncompiled as error:
                findings.append(_finding(CANNOT_COMPILE, where, 1, str(error), "compile"))
            else:
                findings += found
                compiled[f"{case.name}/{label}"] = artifact
    if "replay" in checks and compiled:
        progress(f"{backend}: replaying {len(compiled)} compiles in a clean process")
        findings += _replay_findings(backend, compiled, root)
    return findings


class _Uncompiled(Exception):
    pass


def _compile(case: Case, backend: str, configuration: Configuration, renamed=None, what="it"):
    try:
        return compile_case(case, backend, configuration, renamed)
    except Exception as error:
        raise _Uncompiled(f"{what} does not compile: {type(error).__name__}: {error}") from None


def _audit_case(
    case: Case,
    backend: str,
    configuration: Configuration,
    checks: set,
    root: Path,
    renamings: _Renamings,
) -> tuple[list[Finding], object]:
    """The case's findings, and its artifact for the replay."""
    where = f"behaviour/{backend}/{case.name}/{configuration.label}"
    findings = []
    # The program's files: the case's folder, and every folder of the packages renamed with it.
    own = {case.path.parent}
    own.update(path.parent for folder, _ in case.companions() for path in folder.rglob("*.py"))
    with purity.recording(root, PACKAGE, FRONT_END, sorted(own)) as events:
        original = _compile(case, backend, configuration, what="the program")
    if "purity" in checks:
        findings += [
            _finding(PURITY, e.path, e.line, f"while lowering {where}: {e.what}", e.what)
            for e in events
        ]
    if checks & {"provenance", "locality"}:
        from compiler.backends.registry import get_target

        target = replay.widened(get_target(original.backend, original.device), original.index_bits)
    if "provenance" in checks:
        words = provenance.unexplained_words(original, target)
        if words:
            what = f"the emitted source has words from neither the target nor the IR: {words[:8]}"
            findings.append(_finding(PROVENANCE, where, 1, what, ",".join(words[:8])))
    if "locality" in checks:
        what = locality.appended_difference(original, target)
        if what:
            findings.append(_finding(EMISSION_LOCALITY, where, 1, what, "emitter"))
    with tempfile.TemporaryDirectory(prefix="behaviour-") as folder:
        if "identity" in checks:
            renamed = renamings.of(case)
            other = _compile(case, backend, configuration, renamed, "the renamed program")
            difference = identity.renamed_difference(original, other, renamed)
            if difference:
                number, stage, what = difference
                message = f"renaming (seed {renamings.seed}) changes the {stage} output: {what}"
                findings.append(_finding(IDENTITY_INVARIANCE, where, number, message, stage))
        if "structure" in checks:
            for kind in structure.REWRITES:
                rewritten = structure.rewrite(case, kind, Path(folder))
                if rewritten is None:
                    continue
                try:
                    other = compile_case(rewritten, backend, configuration)
                except Exception:  # a rewrite the program does not take is skipped, not judged
                    continue
                before, after = structure.decision(original), structure.decision(other)
                if before != after:
                    message = f"the {kind} rewrite changes the schedule: {before} became {after}"
                    findings.append(_finding(STRUCTURE_STABILITY, where, 1, message, kind))
                computed = structure.computation_difference(kind, original, other)
                if computed:
                    message = f"the {kind} rewrite changes what the final SSA computes: {computed}"
                    findings.append(_finding(STRUCTURE_STABILITY, where, 1, message, kind))
            # The grid in another form: the decision but the grid's own text must stand.
            before, after = (
                structure.decision(original),
                structure.decision(structure.regridded(original)),
            )
            if before[:3] != after[:3]:
                message = (
                    f"writing the grid in another form changes the schedule: {before[:3]} "
                    f"became {after[:3]}"
                )
                findings.append(_finding(STRUCTURE_STABILITY, where, 1, message, "grid"))
    return findings, original


def _import_findings(root: Path) -> list[Finding]:
    try:
        result = _child(["-m", "audits.behaviour.imports", PACKAGE], root)
    except RuntimeError as error:  # importing the compiler itself failed: that is the finding
        what = f"importing the compiler's modules failed: {str(error)[-600:]}"
        return [_finding(IMPORT_REBINDING, PACKAGE, 1, what, "imports")]
    findings = []
    for found in result["findings"]:
        path = Path(found["file"]).resolve()
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        rebinds = ", ".join(found["rebinds"][:5]) + (", ..." if len(found["rebinds"]) > 5 else "")
        message = f"importing {found['module']} changes {rebinds}"
        findings.append(_finding(IMPORT_REBINDING, shown, 1, message, found["module"]))
    for found in result["opened"]:
        path = Path(found["file"]).resolve()
        shown = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        message = (
            f"importing {found['module']} opens {found['path']}: a file read as a module loads "
            "can decide what lowering does where no compile is watched"
        )
        findings.append(_finding(PURITY, shown, 1, message, found["module"]))
    return findings


def _replay_findings(backend: str, compiled: dict, root: Path) -> list[Finding]:
    try:
        differences = _child(["-m", "audits.behaviour.replay"], root, replay.request(compiled))
    except RuntimeError as error:  # the clean room itself failed: that is the finding
        what = f"the clean-room replay failed: {str(error)[-600:]}"
        return [_finding(CLEAN_ROOM_REPLAY, f"behaviour/{backend}", 1, what, "clean room")]
    return [
        _finding(
            CLEAN_ROOM_REPLAY,
            f"behaviour/{backend}/{d['kernel']}",
            d["number"],
            f"{d['stage']} does not replay in a clean process: {d['what']}",
            d["stage"],
        )
        for d in differences
    ]


def _child(arguments: list[str], root: Path, document: object = None):
    """Run `python ARGUMENTS` in `root` (its `compiler` first on the path) and read its JSON."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), *sys.path])}
    done = subprocess.run(
        [sys.executable, *arguments],
        cwd=root,
        input=None if document is None else json.dumps(document),
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def _finding(rule: RuleInfo, where: str, line: int, what: str, subject: str) -> Finding:
    return Finding(where, line, 1, rule.code, f"{what}; {rule.fix}", subject)
