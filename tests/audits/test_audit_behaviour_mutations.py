"""Disguised operator-specific lowering, planted into a copy of the compiler and wired into the real
pipeline (each really changes what one kernel gets), is caught by the behavioural audits; generic
changes planted the same way stay clean.

Each plant is a list of edits (file, text to find, text to put in its place); the audit runs in the
copy (`python -m audits behaviour`) on the one kernel and backend the plant affects. None of the
plants names an operator in a way the code audit's vocabulary sees.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from audit_support import copy_project

from compiler.ir.parser import parse_kernel
from compiler.suite import SUITE
from compiler.suite.checking import build

_SCHEDULE = "compiler/backends/triton/schedule.py"
_CHOSEN = "        before = {key: kernel.attrs.get(key) for key in chosen}\n"
_EMIT = "    return _Emitter(kernel, target, ssa).run()\n"
_LOWERING = "compiler/backends/lowering.py"
_CANONICALIZE = "compiler/passes/hardware_independent/canonicalize/canonicalize.py"
_CANONICAL_START = "        changed = False\n"
_HANDLE_OPTIONS = "            options = {**self.schedule_options, **metas}\n"


@dataclass(frozen=True)
class Plant:
    name: str
    check: str  # the behavioural check expected to catch it
    code: str  # the code its finding carries (None: a control, no finding at all)
    kernel: str
    edits: tuple[tuple[str, str, str], ...]  # (file, find, replace); find "" makes a new file
    environment: tuple[tuple[str, str], ...] = ()


def _arguments(kernel: str) -> int:
    args = SUITE[kernel].make_args(0)
    return len(build(SUITE[kernel], "triton").compile(*args, **SUITE[kernel].call_kwargs).args)


def _arith_ops_at_schedule(kernel: str) -> int:
    """How many arith ops the kernel has when the Triton schedule pass runs."""
    args = SUITE[kernel].make_args(0)
    artifact = build(SUITE[kernel], "triton").compile(*args, **SUITE[kernel].call_kwargs)
    (entry,) = [e for e in artifact.trace if e["pass"] == "ssa.triton.optimize_schedule"]
    return sum(op.name.startswith("arith.") for op in parse_kernel(entry["ir"]).walk())


def _dots_and_buffers_at_schedule(kernel: str) -> tuple[int, int]:
    """How many dots and buffer arguments the kernel has when the Triton schedule pass runs."""
    args = SUITE[kernel].make_args(0)
    artifact = build(SUITE[kernel], "triton").compile(*args, **SUITE[kernel].call_kwargs)
    (entry,) = [e for e in artifact.trace if e["pass"] == "ssa.triton.optimize_schedule"]
    parsed = parse_kernel(entry["ir"])
    dots = sum(op.name == "linalg.dot" for op in parsed.walk())
    return dots, sum(type(arg.type).__name__ == "BufferType" for arg in parsed.args)


def _computing_chain_digest(kernel: str) -> str:
    """A digest of the kernel's math and reduce ops in program order, as the front end built it."""
    args = SUITE[kernel].make_args(0)
    artifact = build(SUITE[kernel], "triton").compile(*args, **SUITE[kernel].call_kwargs)
    ops = parse_kernel(artifact.initial_ssa).walk()
    chain = "|".join(op.name for op in ops if op.name.startswith(("math.", "reduce.")))
    return hashlib.sha256(chain.encode()).hexdigest()[:16]


def _grid_divisions(kernel: str) -> int:
    """How many floor divisions the kernel's grid expression is written with."""
    args = SUITE[kernel].make_args(0)
    artifact = build(SUITE[kernel], "triton").compile(*args, **SUITE[kernel].call_kwargs)
    return artifact.grid.count("//")


def _final_op_counts(kernel: str) -> str:
    """The kernel's final SSA's op counts, as the plant below writes them."""
    args = SUITE[kernel].make_args(0)
    artifact = build(SUITE[kernel], "triton").compile(*args, **SUITE[kernel].call_kwargs)
    counts: dict[str, int] = {}
    for op in parse_kernel(artifact.ssa).walk():
        counts[op.name] = counts.get(op.name, 0) + 1
    return repr(sorted(counts.items()))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


# A memo of the emitter's text keyed by the whole IR: generic (the same IR, the same text).
_MEMO = (
    (
        "compiler/backends/emitter.py",
        _EMIT,
        "    key = print_kernel(kernel), target.name\n"
        "    if key not in _MEMO:\n"
        "        _MEMO[key] = _Emitter(kernel, target, ssa).run()\n"
        "    return _MEMO[key]\n\n\n_MEMO = {}\n",
    ),
)


def _plants() -> list[Plant]:
    softmax_arguments = _arguments("softmax")
    pool_arith = _arith_ops_at_schedule("max_pool2d")
    matmul_dots_and_buffers = _dots_and_buffers_at_schedule("matmul")
    matmul_divisions = _grid_divisions("matmul")
    softmax_counts = _final_op_counts("softmax")
    softmax_chain = _computing_chain_digest("softmax")
    return [
        Plant(
            "kernel name through a digest",
            "identity",
            "LWB001",
            "vector_add",
            (
                (
                    "compiler/backends/emitter.py",
                    _EMIT,
                    "    text = _Emitter(kernel, target, ssa).run()\n"
                    f"    known = hashlib.sha256(kernel.name.encode()).hexdigest()[:12] == "
                    f"{_digest('vector_add')!r}\n"
                    "    return text.replace('\\n', '\\n\\n', 1) if known else text\n",
                ),
            ),
        ),
        Plant(
            "parameter names through set algebra",
            "identity",
            "LWB001",
            "fused_elementwise",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        if {'x', 'y'} <= {arg.name for arg in kernel.args}:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "the program's docstring",
            "identity",
            "LWB001",
            "flash_attention",
            (
                (
                    "compiler/frontend/handle.py",
                    _HANDLE_OPTIONS,
                    _HANDLE_OPTIONS
                    + "            about = self.application.__globals__.get('__doc__')\n"
                    "            if 'online' in (about or ''):\n"
                    "                options['num_warps'] = 2\n",
                ),
            ),
        ),
        Plant(
            "a file beside the code",
            "purity",
            "LWB002",
            "softmax",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        hints = Path(__file__).with_name('warps.txt').read_text().split()\n"
                    "        if str(len(kernel.args)) in hints:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
                (_SCHEDULE, "from __future__ import annotations\n", "from pathlib import Path\n"),
                ("compiler/backends/triton/warps.txt", "", f"{softmax_arguments}\n"),
            ),
        ),
        Plant(
            "an environment variable",
            "purity",
            "LWB002",
            "softmax",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        if os.environ.get(f'WARPS_FOR_{len(kernel.args)}'):\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
                (_SCHEDULE, "from __future__ import annotations\n", "import os\n"),
            ),
            ((f"WARPS_FOR_{softmax_arguments}", "1"),),
        ),
        Plant(
            "kernel text read back from the module's own source",
            "purity",
            "LWB002",
            "softmax",
            (
                (
                    "compiler/backends/emitter.py",
                    _EMIT,
                    "    text = _Emitter(kernel, target, ssa).run()\n"
                    "    if len(kernel.args) == "
                    f"{softmax_arguments}:\n"
                    "        text += ''.join(inspect.getsource(ssa_sha256).splitlines(True)[1:])\n"
                    "    return text\n",
                ),
                (
                    "compiler/backends/emitter.py",
                    "import hashlib\n",
                    "import hashlib\nimport inspect\n",
                ),
            ),
        ),
        Plant(
            "a decision keyed by the number of arguments",
            "structure",
            "LWB005",
            "softmax",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    f"        if len(kernel.args) == {softmax_arguments}:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "block sizes from a data table the schedule pass reads when it loads",
            "imports",
            "LWB002",
            "vector_add",
            (
                (
                    "compiler/passes/hardware_dependent/select_schedule/measured.toml",
                    "",
                    "vector_add = [256]\n",
                ),
                (
                    "compiler/passes/hardware_dependent/select_schedule/select_schedule.py",
                    "from __future__ import annotations\n",
                    "from __future__ import annotations\n\n"
                    "import pathlib\n"
                    "import tomllib\n\n"
                    "_MEASURED = tomllib.loads(\n"
                    "    (pathlib.Path(__file__).parent / 'measured.toml').read_text()\n"
                    ")\n",
                ),
            ),
        ),
        Plant(
            "a module that patches a generic pass when imported",
            "imports",
            "LWB003",
            "vector_add",
            (
                (
                    "compiler/backends/tuning_defaults.py",
                    "",
                    "from compiler.passes.hardware_independent.canonicalize import canonicalize\n"
                    "_run = canonicalize.Canonicalize.run\n\n\n"
                    "def run(self, kernel, ctx):\n"
                    "    return _run(self, kernel, ctx)\n\n\n"
                    "canonicalize.Canonicalize.run = run\n",
                ),
                (
                    "compiler/backends/__init__.py",
                    "from compiler.backends.target import OpText, Target\n",
                    "from compiler.backends.target import OpText, Target\n"
                    "from compiler.backends import tuning_defaults  # noqa: F401\n",
                ),
            ),
        ),
        Plant(
            "the source edited after emission, keyed by op counts",
            "replay",
            "LWB004",
            "softmax",
            (
                (
                    _LOWERING,
                    "    return build_artifact(\n",
                    "    artifact = build_artifact(\n",
                ),
                (
                    _LOWERING,
                    "        lowering=lowering,\n    )\n",
                    "        lowering=lowering,\n    )\n"
                    "    if work.op_counts().get('math.exp', 0) == 1:\n"
                    "        edited = artifact.source.replace('\\n', '\\n\\n', 1)\n"
                    "        artifact = dataclasses.replace(artifact, source=edited)\n"
                    "    return artifact\n",
                ),
                (_LOWERING, "from collections.abc import Sequence\n", "import dataclasses\n"),
            ),
        ),
        Plant(
            "state the front end leaves for a pass",
            "replay",
            "LWB004",
            "softmax",
            (
                (
                    "compiler/frontend/handle.py",
                    _HANDLE_OPTIONS,
                    _HANDLE_OPTIONS + "            schedule_module.HINT = len(self.tensors)\n",
                ),
                (
                    "compiler/frontend/handle.py",
                    "import torch\n",
                    "import torch\n\nfrom compiler.backends.triton import schedule as "
                    "schedule_module\n",
                ),
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        if globals().get('HINT') == 2:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "an exact op count (a fingerprint of one kernel)",
            "structure",
            "LWB005",
            "max_pool2d",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        if sum(op.name.startswith('arith.') for op in ops) == "
                    f"{pool_arith}:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "exact counts of dots and buffers (a fingerprint of one kernel)",
            "structure",
            "LWB005",
            "matmul",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        dots = sum(op.name == 'linalg.dot' for op in ops)\n"
                    "        buffers = sum(type(a.type).__name__ == 'BufferType' "
                    "for a in kernel.args)\n"
                    f"        if (dots, buffers) == {matmul_dots_and_buffers}:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "the form of one kernel's grid expression",
            "structure",
            "LWB005",
            "matmul",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    f"        if kernel.attrs['grid'].count('//') == {matmul_divisions}:\n"
                    "            chosen['num_warps'] = 2\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "exp rewritten as exp2 for one chain of math and reduce ops (a digest of it)",
            "structure",
            "LWB005",
            "softmax",
            (
                (
                    _CANONICALIZE,
                    _CANONICAL_START,
                    _CANONICAL_START + "        ops = [op for op in kernel.walk()]\n"
                    "        chain = '|'.join(o.name for o in ops if o.name[:5] in ('math.', "
                    "'reduc'))\n"
                    "        digest = __import__('hashlib').sha256(chain.encode()).hexdigest()\n"
                    f"        if digest[:16] == {softmax_chain!r}:\n"
                    "            for op in ops:\n"
                    "                if op.name == 'math.exp':\n"
                    "                    op.name, changed = 'math.exp2', True\n",
                ),
            ),
        ),
        Plant(
            "a magic constant of one kernel",
            "structure",
            "LWB005",
            "flash_attention",
            (
                (
                    _SCHEDULE,
                    _CHOSEN,
                    "        if any(op.attrs.get('value') == 1.4426950408889634 for op in ops):\n"
                    "            chosen['num_stages'] = 3\n" + _CHOSEN,
                ),
            ),
        ),
        Plant(
            "a helper snippet kept in the emitter, keyed by the ops present",
            "provenance",
            "LWB007",
            "softmax",
            (
                (
                    "compiler/backends/emitter.py",
                    _EMIT,
                    "    text = _Emitter(kernel, target, ssa).run()\n"
                    "    present = {op.name for op in kernel.walk()}\n"
                    "    if 'math.exp' in present and 'scf.for' not in present:\n"
                    "        text += '# static inline fast exponent helper\\n'\n"
                    "    return text\n",
                ),
            ),
        ),
        Plant(
            "control: a new spelling in a target record, for every kernel",
            "provenance",
            None,
            "softmax",
            (
                (
                    "compiler/backends/triton/target.py",
                    '    "arith.max": "tl.maximum({0}, {1})",\n',
                    '    "math.exp": "tl.exp2({0} * 1.4426950408889634)",\n'
                    '    "arith.max": "tl.maximum({0}, {1})",\n',
                ),
            ),
        ),
        Plant(
            "control: a generic rule on tile sizes",
            "identity",
            None,
            "softmax",
            (
                (
                    _SCHEDULE,
                    "    return 8 if largest_tile >= LARGE_TILE else 4\n",
                    "    return 8 if largest_tile >= LARGE_TILE // 4 else 4\n",
                ),
            ),
        ),
        Plant(
            "text written beforehand (loads and stores respelt), keyed by the final op counts",
            "locality",
            "LWB008",
            "softmax",
            (
                (
                    "compiler/backends/emitter.py",
                    _EMIT,
                    "    text = _Emitter(kernel, target, ssa).run()\n"
                    "    counts = {}\n"
                    "    for op in kernel.walk():\n"
                    "        counts[op.name] = counts.get(op.name, 0) + 1\n"
                    "    key = hashlib.sha256(repr(sorted(counts.items())).encode()).hexdigest()\n"
                    f"    if key[:12] == {_digest(softmax_counts)!r}:\n"
                    "        text = text.replace(', mask=', ', cache_modifier=None, mask=')\n"
                    "    return text\n",
                ),
            ),
        ),
        *(
            Plant(
                f"control: a memo of lowered text keyed by the IR ({check})",
                check,
                None,
                "softmax",
                _MEMO,
            )
            for check in ("replay", "locality")
        ),
    ]


PLANTS = _plants()


def _plant(root: Path, plant: Plant) -> None:
    for relative, find, replace in plant.edits:
        path = root / relative
        if not find:
            path.write_text(replace)
            continue
        text = path.read_text()
        assert text.count(find) >= 1, f"{plant.name}: {relative} no longer has {find!r}"
        path.write_text(text.replace(find, replace, 1))


def _audit(root: Path, plant: Plant) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "audits", "behaviour", "--backend", "triton"]
    command += ["--kernel", plant.kernel, "--configuration", "given", "--check", plant.check]
    command += ["--seed", "7"]
    environment = {**os.environ, **dict(plant.environment), "PYTHONPATH": str(root)}
    return subprocess.run(
        command, cwd=root, capture_output=True, text=True, env=environment, timeout=300
    )


@pytest.mark.parametrize("plant", PLANTS, ids=[plant.name for plant in PLANTS])
def test_planted_disguise_is_caught_and_controls_stay_clean(plant: Plant, tmp_path):
    root = copy_project(tmp_path)
    _plant(root, plant)
    done = _audit(root, plant)
    if plant.code is None:
        assert done.returncode == 0, done.stdout + done.stderr[-2000:]
        return
    assert done.returncode == 1, done.stdout + done.stderr[-2000:]
    assert plant.code in done.stdout, done.stdout


def test_an_unplanted_copy_is_clean(tmp_path):
    """The copy itself is clean under every check the plants use, so a finding is the plant's."""
    root = copy_project(tmp_path)
    command = [sys.executable, "-m", "audits", "behaviour", "--backend", "triton"]
    for kernel in sorted({plant.kernel for plant in PLANTS}):
        command += ["--kernel", kernel]
    command += ["--configuration", "given", "--seed", "7"]
    environment = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
