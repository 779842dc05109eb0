"""`python -m audits` / `lowering-audit`: exit 0 when clean, 1 on findings, 2 when it cannot audit.

check [PATHS]    audit the code (default: the configured paths); --config FILE reads the
                 [tool.lowering-audit] table of another file, --root DIR audits another folder
                 with it (a third-party package: audits/REUSE.md)
rules            list every code with what it catches and what to do instead
traces FILE      audit pass traces saved as JSON: {"artifacts": {backend: {kernel: artifact}},
                 "targets": {backend: {"legal_ops": [...]}}}
traces --suite   compile this repository's kernel suite for every backend and audit its traces
                 (--backend NAME, --kernel NAME: only those; each may repeat)
behaviour        run the compiler to prove lowering generic (renaming, purity, imports,
                 clean-room replay, structure stability, provenance) over the suite's kernels (or
                 --corpus FILE: the ntops kernels of `make bench`, or for another corpus, or with
                 --tests, the kernels its tests make) × backends × configurations (--backend,
                 --kernel, --configuration given|scheduled|candidates, --check: only those;
                 --seed N: the renaming's)
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from dataclasses import replace
from pathlib import Path

from audits.baseline import render_baseline
from audits.behaviour.audit import CHECKS
from audits.behaviour.cases import CONFIGURATIONS
from audits.catalogue import all_rules
from audits.config import ConfigError, load_config
from audits.engine import AuditReport, NoFilesScanned, audit_project
from audits.findings import Finding
from audits.output import render_json, render_sarif, render_text
from audits.trace import audit_traces
from audits.trace.suite import audit_suite

CLEAN, FINDINGS, CANNOT_AUDIT = 0, 1, 2


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        return arguments.run(arguments)
    except (ConfigError, NoFilesScanned, OSError, json.JSONDecodeError) as error:
        print(f"lowering-audit: {error}", file=sys.stderr)
        return CANNOT_AUDIT
    except Exception:  # an internal error must never read as a clean audit
        print("lowering-audit: internal error", file=sys.stderr)
        traceback.print_exc()
        return CANNOT_AUDIT


def _check(arguments: argparse.Namespace) -> int:
    config = load_config(arguments.config)
    if arguments.root is not None:
        if not arguments.root.is_dir():
            raise ConfigError(f"--root {arguments.root} is not a folder")
        config = replace(config, root=arguments.root.resolve())
    paths = [Path(path) for path in arguments.paths] or None
    report = audit_project(config, paths, use_baseline=not arguments.no_baseline)
    for note in report.notes:
        print(f"lowering-audit: note: {note}", file=sys.stderr)
    if arguments.format == "baseline":
        _write(arguments.output, render_baseline(report.findings))
    else:
        _write(arguments.output, _render(arguments.format, report.findings, report, config.root))
    return FINDINGS if report.findings else CLEAN


def _rules(arguments: argparse.Namespace) -> int:
    infos = all_rules()
    if arguments.format == "json":
        text = json.dumps([vars(info) for info in infos], indent=2) + "\n"
    else:
        text = "".join(f"{i.code} {i.name}: {i.summary}\n    fix: {i.fix}\n" for i in infos)
    _write(arguments.output, text)
    return CLEAN


def _traces(arguments: argparse.Namespace) -> int:
    if arguments.suite:
        findings = audit_suite(arguments.backend, arguments.kernel)
    elif arguments.backend or arguments.kernel:
        raise ConfigError("--backend and --kernel select suite kernels: use them with --suite")
    else:
        try:
            document = json.loads(Path(arguments.file).read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise ConfigError(f"{arguments.file} is not JSON ({error})") from None
        if not isinstance(document, dict) or not document.get("artifacts"):
            raise ConfigError(
                f'{arguments.file} holds no artifacts: give {{"artifacts": {{backend: {{kernel: '
                "artifact}}}, or use --suite"
            )
        findings = audit_traces(document["artifacts"], document.get("targets", {}))
    _write(arguments.output, _render(arguments.format, findings, None, Path.cwd()))
    return FINDINGS if findings else CLEAN


def _behaviour(arguments: argparse.Namespace) -> int:
    from audits.behaviour.audit import audit_behaviour
    from audits.behaviour.cases import (
        DEFAULT_CONFIGURATIONS,
        knows_library,
        library_cases,
        suite_cases,
    )
    from audits.behaviour.recorded import recorded_cases
    from compiler.backends import TARGETS
    from compiler.errors import CompileError

    def note(text: str) -> None:
        print(f"lowering-audit: {text}", file=sys.stderr, flush=True)

    try:
        if arguments.tests and not arguments.corpus:
            raise KeyError("--tests records the kernels of a corpus's tests: give --corpus too")
        if arguments.corpus and (arguments.tests or not knows_library(arguments.corpus)):
            cases = recorded_cases(arguments.corpus, arguments.kernel, note)
        elif arguments.corpus:
            cases = library_cases(arguments.corpus, arguments.kernel)
        else:
            cases = suite_cases(arguments.kernel)
    except (KeyError, CompileError) as error:
        raise ConfigError(error.args[0]) from None

    backends = arguments.backend or sorted(TARGETS)
    unknown = sorted(set(backends) - set(TARGETS))
    if unknown:
        raise ConfigError(f"no backend named {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    findings = audit_behaviour(
        cases,
        backends,
        configurations=arguments.configuration or DEFAULT_CONFIGURATIONS,
        checks=arguments.check or CHECKS,
        seed=arguments.seed,
        progress=note,
    )
    _write(arguments.output, _render(arguments.format, findings, None, Path.cwd()))
    return FINDINGS if findings else CLEAN


def _render(kind: str, findings: list[Finding], report: AuditReport | None, root: Path) -> str:
    if kind == "sarif":
        return render_sarif(findings, root)
    summary = {"findings": len(findings)}
    if report is not None:
        summary.update(
            files_scanned=len(report.files),
            accepted=report.accepted,
            suppressed=report.suppressed,
            seconds=round(report.seconds, 3),
        )
    if kind == "json":
        summary.pop("findings")
        return render_json(findings, summary)
    return render_text(
        findings, "lowering-audit: " + ", ".join(f"{k} {v}" for k, v in summary.items())
    )


def _write(output: str | None, text: str) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lowering-audit", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="audit the code")
    check.add_argument("paths", nargs="*", help="files or folders (default: the configured paths)")
    check.add_argument("--config", type=Path, help="pyproject.toml (default: the nearest one)")
    check.add_argument(
        "--root", type=Path, help="audit this folder (default: the configuration's folder)"
    )
    check.add_argument("--no-baseline", action="store_true", help="report baselined findings too")
    check.add_argument(
        "--format", "-f", choices=("text", "json", "sarif", "baseline"), default="text"
    )
    check.add_argument("--output", "-o", help="write here instead of stdout")
    check.set_defaults(run=_check)
    rules = commands.add_parser("rules", help="list the codes")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--output", "-o")
    rules.set_defaults(run=_rules)
    traces = commands.add_parser("traces", help="audit pass traces (saved as JSON, or the suite's)")
    source = traces.add_mutually_exclusive_group(required=True)
    source.add_argument("file", nargs="?", help="traces saved as JSON")
    source.add_argument("--suite", action="store_true", help="compile the suite and audit it")
    traces.add_argument("--backend", action="append", help="with --suite: only this backend")
    traces.add_argument("--kernel", action="append", help="with --suite: only this kernel")
    traces.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    traces.add_argument("--output", "-o")
    traces.set_defaults(run=_traces)
    behaviour = commands.add_parser("behaviour", help="prove lowering generic by running it")
    behaviour.add_argument("--backend", action="append", help="only this backend (may repeat)")
    behaviour.add_argument("--kernel", action="append", help="only this kernel (may repeat)")
    behaviour.add_argument(
        "--corpus",
        help="a corpus (tarball or folder with tests/): its library's kernels where this project "
        "knows the library (ntops), else the kernels its tests make; not the suite's",
    )
    behaviour.add_argument(
        "--tests", action="store_true", help="with --corpus: the kernels its tests make, always"
    )
    behaviour.add_argument(
        "--configuration",
        action="append",
        choices=CONFIGURATIONS,
        help="block sizes given, left to the schedule, or each autotuning candidate's",
    )
    behaviour.add_argument("--check", action="append", choices=CHECKS)
    behaviour.add_argument("--seed", type=int, help="of the renaming (default: random)")
    behaviour.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    behaviour.add_argument("--output", "-o")
    behaviour.set_defaults(run=_behaviour)
    return parser
