"""Run the commands that skill excerpts quote and print `{command: [exit status, stdout]}` as JSON.

`python tests/skills/run_commands.py '<JSON list of commands>'`, from the repository root. The
project is imported once; each command then runs in a fresh fork of this interpreter, so it sees
the state a new process would (no program loaded yet, counters at zero) without paying the
interpreter's start-up again. Commands: `ntc ...`, `python -m audits ...`, `python <script> ...`.
"""

from __future__ import annotations

import json
import os
import runpy
import shlex
import sys
import tempfile
import traceback

import audits.cli
import compiler.backends  # noqa: F401 - the slow imports, once, before forking
import compiler.cli
import compiler.cli.program  # noqa: F401


def run(argv: list[str]) -> int:
    tool = argv[0].removeprefix(".venv/bin/")
    if tool == "ntc":
        return compiler.cli.main(argv[1:])
    if argv[1:3] == ["-m", "audits"]:
        return audits.cli.main(argv[3:])
    sys.argv = argv[1:]
    runpy.run_path(argv[1], run_name="__main__")
    return 0


def run_forked(command: str) -> tuple[int, str]:
    sys.stdout.flush()
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as output:
        pid = os.fork()
        if pid == 0:
            os.dup2(output.fileno(), sys.stdout.fileno())
            try:
                status = run(shlex.split(command))
            except SystemExit as done:
                status = done.code if isinstance(done.code, int) else int(done.code is not None)
            except BaseException:
                traceback.print_exc()
                status = 2
            sys.stdout.flush()
            os._exit(status or 0)
        _, wait_status = os.waitpid(pid, 0)
        output.seek(0)
        return os.waitstatus_to_exitcode(wait_status), output.read()


if __name__ == "__main__":
    print(json.dumps({command: run_forked(command) for command in json.loads(sys.argv[1])}))
