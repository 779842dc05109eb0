"""add-op's gates, in a sandbox: a wrong spelling or a wrong rewrite of an existing op planted in
the tree fails its conformance gate, named by op, backend and first differing element."""

import dataclasses

import pytest

from agents.gates import run_gates
from agents.run import TVM_PYTHON
from agents.tasks import load_task

SECONDS_LEFT = 600.0
# (op, file, the text there, what a careless change writes instead, the backend that shows it)
PLANTS = [
    ("arith.sub", "compiler/backends/operators.py", '"arith.sub": "-"', '"arith.sub": "+"', None),
    (
        "math.tanh",  # rewritten where a language has no tanh (Triton), spelled elsewhere
        "compiler/passes/helpers/math_decompositions.py",
        "o.add(1.0, t))",
        "o.add(2.0, t))",
        "triton",
    ),
]


@pytest.mark.parametrize("op, path, right, wrong, backend", PLANTS, ids=[p[0] for p in PLANTS])
def test_a_planted_mistake_in_an_existing_op_fails_add_op_s_gate(
    context, op, path, right, wrong, backend
):
    file = context.sandbox.root / path
    text = file.read_text()
    assert text.count(right) == 1
    file.write_text(text.replace(right, wrong))
    (gate,) = [g for g in load_task("add-op", {"OP": op}).gates if g.name == "conformance"]
    env = {**context.env, "TRITON_INTERPRET": "1"}
    if TVM_PYTHON.is_file():  # as a run's gates have it: a sandbox has no .venv-tvm
        env["NTC_TVM_PYTHON"] = str(TVM_PYTHON)
    (result,) = run_gates((gate,), dataclasses.replace(context, env=env), SECONDS_LEFT)
    assert not result.passed
    messages = "\n".join(finding.message for finding in result.findings)
    on = f" on {backend}: element " if backend else " on "
    assert f"{op}(f32" in messages and on in messages and "got" in messages, messages
