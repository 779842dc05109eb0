"""A patch that adds `lower_matmul` to a backend is rejected by the audit gate, and the finding
(file:line and rule code) reaches the model in its next request."""

from agent_support import run
from fake_openai import FakeOpenAI, reply

from agents.transcript import read_events

PATCH = "compiler/backends/triton/matmul_lowering.py"
SOURCE = (
    '"""Matrix products, emitted directly."""\n\n\ndef lower_matmul(kernel):\n    return kernel\n'
)


def test_lower_matmul_is_rejected_and_the_finding_reaches_the_model(home):
    script = [
        reply(("write_file", {"path": PATCH, "content": SOURCE}), ("finish", {"summary": "fast"})),
        reply(("delete_file", {"path": PATCH}), ("finish", {"summary": "generic path"})),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="audit")
    feedback = server.last_message(1)
    assert feedback["role"] == "user"
    assert f"{PATCH}:4: LWA001" in feedback["content"]
    assert "lower_matmul" in feedback["content"]
    assert "audit FAILED" in feedback["content"]
    assert result.status == "green"
    gates = [e for e in read_events(result.out) if e["type"] == "gates"]
    assert [g["results"][0]["passed"] for g in gates] == [False, True]
    assert gates[0]["results"][0]["findings"][0]["code"] == "LWA001"
