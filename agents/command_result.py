"""What the model reads after a `run` command: its exit status and output, or that its time limit
stopped it, or that the workflow was killed while it ran. The status is the first line, the only
one a replay compares (outputs hold times and versions)."""

from __future__ import annotations

from agents.sandbox import Completed

HEAD_CHARS, TAIL_CHARS = 4_000, 12_000  # of a command's output, shown around a cut
LAST_LINES = 40  # of a stopped command's output

INTERRUPTED = """\
interrupted
The workflow was stopped (killed, or it crashed) while this command ran, so its result was lost;
when the run resumed, whatever was left of the command was ended. It is not run again by itself:
run it again if you need its output."""


def shown(done: Completed, limit: float) -> str:
    if done.returncode is None:
        return stopped(done, limit)
    output = done.stdout.strip()
    if len(output) > HEAD_CHARS + TAIL_CHARS:
        cut = len(output) - HEAD_CHARS - TAIL_CHARS
        output = output[:HEAD_CHARS] + f"\n... {cut} characters cut ...\n" + output[-TAIL_CHARS:]
    return f"exit {done.returncode}\n{output or '(no output)'}"


def stopped(done: Completed, limit: float) -> str:
    last = "\n".join(done.stdout.strip().splitlines()[-LAST_LINES:])[-TAIL_CHARS:]
    return (
        "stopped by its time limit\n"
        f"It ran for its whole limit of {limit:.0f} s (a command's limit, or less when the run's "
        "time budget had less left) and was ended with everything it started. Run a smaller "
        "part of it (one test file or node id, one kernel), or leave long checks to the gates "
        f"(run_checks). Its last lines of output:\n{last or '(no output)'}"
    )
