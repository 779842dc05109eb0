"""What a gate runs, in the words the task prompt lists it with: its kind's own description of its
spec, or the task's `about` where the kind cannot tell (a check script), and the `typical` time
of a round."""

from __future__ import annotations

from agents.tasks import GateSpec


def describe(gate: GateSpec) -> str:
    return f"{gate.name}: {gate.about or _what(gate)} ({_time(gate)})"


def _what(gate: GateSpec) -> str:
    paths = " ".join(gate.args)
    selection = _selection(gate.args)
    if gate.kind == "ruff":
        return f"`ruff check` and `ruff format --check` on {paths or 'the Python files you change'}"
    if gate.kind == "audit":
        return "the lowering audit of the code (`python -m audits check`)"
    if gate.kind == "traces":
        return f"the pass-trace audit of {selection} (`python -m audits traces --suite`)"
    if gate.kind == "behaviour":
        return (
            "the behavioural audits (renamed identifiers, purity, imports, a replay in a clean "
            f"process, schedule structure) of {selection}"
        )
    if gate.kind == "success":
        criteria = "; ".join(f"{key}: {', '.join(values)}" for key, values in gate.success)
        return f"the task's criteria ({criteria})"
    if gate.kind == "pytest":
        return _pytest(gate, paths)
    return f"{gate.script.name if gate.script else gate.kind} {paths}".strip()


def _pytest(gate: GateSpec, paths: str) -> str:
    if gate.affected:
        named = f"name {' or '.join(gate.mentions)} or " if gate.mentions else ""
        return (
            f"pytest on the tests under {paths} that your change touches: the tests that use a "
            f"module you change (directly or through their file's helpers and fixtures), the "
            f"files that {named}read a data file you add beside them, and the tests parametrized "
            "with a changed module's name"
        )
    if gate.added:
        return "pytest on the test files you add" + (f", and {paths}" if paths else "")
    if gate.select:
        return f"pytest {paths}, the tests parametrized with {' or '.join(gate.select)}"
    return f"pytest {paths}"


def _selection(args: tuple[str, ...]) -> str:
    """`--backend c --kernel matmul` -> `the suite kernel matmul on c`."""
    given: dict[str, list[str]] = {}
    for flag, value in zip(args, args[1:], strict=False):
        if flag.startswith("--"):
            given.setdefault(flag[2:], []).append(value)
    kernels = given.get("kernel")
    backends = given.get("backend")
    what = f"the suite kernel {', '.join(kernels)}" if kernels else "every suite kernel"
    return f"{what} on {', '.join(backends) if backends else 'every backend'}"


def _time(gate: GateSpec) -> str:
    if gate.kind == "success":
        return "instant"
    if gate.added and gate.typical is None:
        return "as long as the tests you add take"
    if gate.typical is None:
        return "time not measured"
    if gate.typical < 60:
        return f"about {max(1, round(gate.typical))} s"
    return f"about {round(gate.typical / 60)} min"
