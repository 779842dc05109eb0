"""Compile suite kernels for backends, run them on fresh random inputs with poisoned outputs, and
compare with torch (`compiler.suite.checking.check`); print the failures as gate findings (JSON).

Run by the `script` gate with the sandbox as working directory and first on the import path:
  python agents/tasks/checks/suite_check.py [--backend NAME ...] [--kernel NAME ...] [--seed N]
Without --backend every backend of `compiler.backends.TARGETS`; without --kernel every kernel.
Exit 0 when every kernel matches, 1 on findings.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    findings = []
    try:
        from compiler.backends import TARGETS
        from compiler.suite import SUITE

        check = _suite_check()
    except Exception as error:  # the change broke the compiler's imports: that is the finding
        findings.append(_crash("the compiler does not import", error))
        return _report(findings)
    backends = args.backend or sorted(TARGETS)
    for name in args.kernel or sorted(SUITE):
        if name not in SUITE:
            findings.append(_finding(".", 0, "SUITE", f"no suite kernel {name!r}; add it to SUITE"))
            continue
        for backend in backends:
            where = f"suite kernel {name} on backend {backend}"
            try:
                result = check(SUITE[name], backend, seed=args.seed)
            except Exception as error:
                findings.append(_crash(where, error))
                continue
            if not result.passed:
                program = _relative(Path(SUITE[name].path))
                message = f"{where}: max |error| {result.max_error:.3g} against torch"
                findings.append(_finding(program, 1, "SUITE", message))
    return _report(findings)


def _crash(where: str, error: Exception) -> dict:
    """A finding at the deepest frame of the traceback that lies in the working tree."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _inside(f.filename)]
    path, line = (_relative(Path(frames[-1].filename)), frames[-1].lineno) if frames else (".", 0)
    return _finding(path, line, "SUITE", f"{where}: {type(error).__name__}: {error}")


def _inside(filename: str) -> bool:
    return Path(filename).resolve().is_relative_to(Path.cwd().resolve())


def _relative(path: Path) -> str:
    path = path.resolve()
    root = Path.cwd().resolve()
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _finding(path: str, line: int, code: str, message: str) -> dict:
    return {"path": path, "line": line, "code": code, "message": message}


def _report(findings: list[dict]) -> int:
    json.dump({"findings": findings}, sys.stdout, indent=1)
    return 1 if findings else 0


def _suite_check():
    """`check` where the sandbox's tree has it: a replay runs this script over the commit its
    transcript was recorded on, which may predate the move of compiler/checking.py into the
    suite."""
    try:
        from compiler.suite.checking import check
    except ModuleNotFoundError as missing:
        if missing.name != "compiler.suite.checking":
            raise
        from compiler.checking import check
    return check


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", action="append", help="a backend (repeat); default all")
    parser.add_argument("--kernel", action="append", help="a suite kernel (repeat); default all")
    parser.add_argument("--seed", type=int, default=1234)
    return parser


if __name__ == "__main__":
    sys.exit(main())
