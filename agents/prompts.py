"""The words the workflow says to the model: the system prompt, the task, and its reminders."""

from __future__ import annotations

from agents.gates import GateResult, feedback
from agents.gates.describe import describe
from agents.skills import Skill, catalog
from agents.tasks import Task

SYSTEM = """\
You change a compiler repository through tools, in a sandbox: a fresh clone of the project. The
compiler lowers every kernel through one generic SSA IR and one pass pipeline; backends differ
only in data (a target record and a spelling table). Keep every change on that path: no function,
class or table per operator or per kernel, no kernel source as text, no backend names in shared
code. The lowering audit rejects those shapes.

Work in small steps: read before you write, keep files small with one concept each, and follow
the code's style (ruff formats it; line length 100). run(command) runs a project command in the
sandbox (ntc, the skills' scripts, pytest on paths; its description lists them): look at what
your change emits and run its tests. The task's gates, in order, with what each runs and how long
a round of it takes on this 2-core machine:
{gates}
They run when you call run_checks() or finish(summary) and report findings as path:line: CODE
message.
Fix the code until they pass; never suppress a finding, never edit the audits, the tests or the
baseline (those writes are refused).{new_files}

Skills (activate_skill(name) gives one in full, with its files):
{catalog}
"""

TASK = """\
Task {name}: {prompt}
{scratch}
Recommended skills: {skills}.
"""
SCRATCH = """
Proof programs go in scratch/, which is not part of the change: write scratch/NAME.py and run it
with `python scratch/NAME.py` or `ntc run scratch/NAME.py` (`ntc run --help` shows what a program
file holds).
"""

TEXT_ONLY = (
    "Reply with tool calls: change the repository with the tools, and call finish(summary) when "
    "the change is complete."
)

RED = "Fix every finding in the code (not by suppressing it), then call finish(summary) again."
FIX = "Fix them, then call finish(summary)."
GREEN = "All gates pass."
# A time limit is no finding: the model is told what ran out of time and that the code owes nothing
# for it, unless the change itself is what made it slow.
NOT_A_FINDING = (
    "A gate STOPPED by its time limit found nothing: it ran out of time before it could judge the "
    "change, and the workflow had already run it once more if the run had time left. That is not "
    "a finding: change nothing in the code for it, unless your change can make what was running "
    "slow or never end (the test named above)."
)
OUT_OF_TIME = f"{NOT_A_FINDING} Then call finish(summary) to run the gates again."


NEW_FILES = """ Add your own tests as new files where the skills say they go; this task
lets you create (not change) files at: {globs}. The gates run them."""


def system_prompt(task: Task, skills: dict[str, Skill]) -> str:
    gates = "\n".join(f"- {describe(gate)}" for gate in task.gates) or "- none"
    new_files = NEW_FILES.format(globs=", ".join(task.writable)) if task.writable else ""
    return SYSTEM.format(gates=gates, catalog=catalog(skills), new_files=new_files)


def task_prompt(task: Task) -> str:
    skills = ", ".join(task.skills) or "none"
    scratch = SCRATCH if task.scratch else ""
    return TASK.format(name=task.name, prompt=task.prompt, skills=skills, scratch=scratch)


def gates_message(results: list[GateResult], *, after_finish: bool) -> str:
    if all(r.passed for r in results):
        closing = GREEN
    elif all(r.passed or r.time_limit for r in results):
        closing = OUT_OF_TIME
    else:
        closing = RED if after_finish else FIX
        if any(r.time_limit for r in results):
            closing += f"\n{NOT_A_FINDING}"
    return f"{feedback(results)}\n\n{closing}"


def rejected(answer: str) -> str:
    return f"A reviewer rejected the change: {answer}\nAddress it, then call finish(summary)."
