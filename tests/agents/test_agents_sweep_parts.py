"""The parts of a skill-eval sweep that need no model run: withholding a skill from a run, the
units a sweep plans, the intervals, the retry loop, the results folder, the tables and the
scripted model's choices."""

from __future__ import annotations

import pytest
from agent_support import run
from crashing_work import crash_once
from fake_openai import FakeOpenAI, reply

from agents.commands import sandbox_command
from agents.errors import AgentError
from agents.run import PROJECT_ROOT, _resolve
from agents.sweep.execute import Workers, run_all
from agents.sweep.plan import Model, parse_model, plan, read_evals
from agents.sweep.scripted import ScriptedModel, suppressed
from agents.sweep.stats import difference, wilson
from agents.sweep.store import Results
from agents.sweep.summary import render
from agents.transcript import read_events

SKILL = "compiler-lowering-audit"
CASE = "fix-planted-fast-path"


def test_a_withheld_skill_is_out_of_the_catalog_the_tree_and_activate_skill(home):
    script = [
        reply(("activate_skill", {"name": SKILL}), ("list_files", {"path": "skills"})),
        reply(("write_file", {"path": "notes/done.txt", "content": "done"})),
        reply(("finish", {"summary": "wrote the note"})),
    ]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="withheld")
        system = server.requests[0]["body"]["messages"][0]["content"]
    assert result.status == "green"
    assert f"- {SKILL}:" not in system and "- compiler-ir-architecture:" in system
    tools = {e["name"]: e for e in read_events(result.out) if e["type"] == "tool"}
    assert tools["activate_skill"]["status"] == "refused"
    assert (
        tools["activate_skill"]["result"] == f"refused: the skill {SKILL} is withheld in this run"
    )
    assert SKILL not in tools["list_files"]["result"].split()
    assert "compiler-ir-architecture/" in tools["list_files"]["result"].split()
    patch = (result.out / "patch.diff").read_text()
    assert "notes/done.txt" in patch and "skills/" not in patch  # withholding is the setup


def test_withholding_a_skill_the_tree_lacks_is_refused(home, tmp_path):
    task = tmp_path / "task.yaml"
    task.write_text("prompt: p\nwithhold: [no-such-skill]\n")
    with FakeOpenAI([]) as server, pytest.raises(AgentError, match="withholds the skill"):
        run(home, server, task=str(task))


def test_units_differ_between_arms_only_in_the_catalog():
    commit = _resolve(PROJECT_ROOT, "HEAD")
    evals = read_evals(PROJECT_ROOT, commit, [SKILL], [CASE], {"test": ".venv/bin/python -V"})
    planted = (PROJECT_ROOT / "skills" / SKILL / "evals" / "files" / "fast_paths.py").read_text()
    assert evals[0].setup == {"compiler/passes/fast_paths.py": planted}
    assert evals[0].commands["audit"] == "{bin}/python -m audits check"
    assert evals[0].commands["test"] == "{bin}/python -V"
    units = plan(evals, [Model("m", "http://x/v1")], 2, commit, ("ruff", "audit"), {})
    assert [u.key.split("/", 2)[2] for u in units] == [
        "m/with/0",
        "m/without/0",
        "m/with/1",
        "m/without/1",
    ]
    with_, without = units[0].task, units[1].task
    assert with_["prompt"] == without["prompt"] and with_["gates"] == without["gates"]
    assert (with_["withhold"], without["withhold"]) == ([], [SKILL])
    assert with_["prompt"].endswith("Files to start from: compiler/passes/fast_paths.py.")
    with pytest.raises(AgentError, match="no skill"):
        read_evals(PROJECT_ROOT, commit, ["no-such-skill"], [], {})
    with pytest.raises(AgentError, match="no eval"):
        read_evals(PROJECT_ROOT, commit, [SKILL], ["no-such-case"], {})


def test_models_are_endpoints():
    assert parse_model("qwen@http://gpu1:8000/v1") == Model("qwen", "http://gpu1:8000/v1")
    assert parse_model("gpt-4.1") == Model("gpt-4.1")
    with pytest.raises(AgentError, match="needs a model endpoint"):
        parse_model("manual:me")


def test_commands_become_runnable_in_a_sandbox():
    assert sandbox_command(".venv/bin/ntc compile {file}") == "{bin}/ntc compile {file}"
    assert sandbox_command("make test") == "make -o install PY={bin}/python test"
    assert sandbox_command("git status") == "git status"


def test_intervals_match_newcombe_1998():
    low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    for counts, expected in [
        ((56, 70, 48, 80), (0.0524, 0.3339)),
        ((9, 10, 3, 10), (0.1705, 0.8090)),
        ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ]:
        _, lower, upper = difference(*counts)
        assert (round(lower, 4), round(upper, 4)) == expected


class Flaky:
    """A backend whose units fail as often as `failures` says, then succeed."""

    name = "flaky"

    def __init__(self, failures: dict[str, int]):
        self.failures = failures
        self.submitted = []

    def submit(self, unit):
        self.submitted.append(unit)
        return (unit, len(self.submitted))

    def next_done(self, handles):
        handle = handles[0]
        if self.failures.get(handle[0], 0):
            self.failures[handle[0]] -= 1
            return handle, RuntimeError(f"{handle[0]} lost")
        return handle, {"record": handle[0]}


def test_a_failed_unit_is_tried_once_more():
    backend = Flaky({"once": 1, "always": 5})
    outcomes = {
        unit: (value, attempts)
        for unit, value, attempts in run_all(backend, ["ok", "once", "always"])
    }
    assert outcomes["ok"] == ({"record": "ok"}, 1)
    assert outcomes["once"] == ({"record": "once"}, 2)
    assert str(outcomes["always"][0]) == "always lost" and outcomes["always"][1] == 2
    assert backend.submitted.count("always") == 2


def test_a_unit_whose_worker_died_is_run_again_on_a_new_pool(tmp_path):
    workers = Workers(2, None, work=crash_once)
    try:
        units = [(str(tmp_path), "crash"), (str(tmp_path), "fine")]
        outcomes = {unit[1]: (value, attempts) for unit, value, attempts in run_all(workers, units)}
    finally:
        workers.close()
    assert outcomes["crash"] == ({"record": "crash"}, 2)
    assert outcomes["fine"][0] == {"record": "fine"}


def _record(key: str, **fields) -> dict:
    skill, case, model, arm, repeat = key.split("/")
    record = {
        "key": key,
        "skill": skill,
        "eval": case,
        "model": model,
        "arm": arm,
        "repeat": int(repeat),
        "run_id": key.replace("/", "."),
        "outcome": "green",
        "passed": True,
        "grades": [{"text": "audit clean", "status": "pass", "detail": ""}],
        "skill_activated": arm == "with",
        "calls": 4,
        "tokens": 1000,
    }
    return record | fields


def test_the_results_folder_keeps_the_last_record_of_each_key(tmp_path):
    config = {
        "commit": "c",
        "gates": ["audit"],
        "budget": {},
        "commands": {},
        "scripted_rates": None,
    }
    results = Results.open(tmp_path / "s", config, {"m": {"base_url": None, "scripted": False}})
    results.add(_record("s/e/m/with/0", outcome="error", passed=None), {})
    with (tmp_path / "s" / "runs.jsonl").open("a") as file:
        file.write('{"key": "s/e/m/with/1", "cut sh')  # a crash in the middle of a line
    results.add(_record("s/e/m/with/0"), {"patch.diff": b"diff"})
    assert list(results.records()) == ["s/e/m/with/0"]
    assert results.finished()["s/e/m/with/0"]["outcome"] == "green"
    assert results.artifact(results.records()["s/e/m/with/0"], "patch.diff").read_bytes() == b"diff"
    with pytest.raises(AgentError, match="whose gates differ"):
        Results.open(tmp_path / "s", config | {"gates": ["ruff"]}, {})


def test_the_tables_count_runs_per_arm_and_pool_the_evals(tmp_path):
    failing = [
        {"text": "audit clean", "status": "fail", "detail": ""},
        {"text": "explained", "status": "judge", "detail": ""},
    ]
    records = [
        _record("s/a/m/with/0"),
        _record("s/a/m/with/1", calls=6, tokens=3000),
        _record("s/a/m/without/0", passed=False, grades=failing, calls=2, tokens=500),
        _record("s/a/m/without/1", outcome="error", passed=None),
        _record("s/b/m/with/0"),
        _record("s/b/m/without/0"),
    ]
    config = {"commit": "c", "gates": ["audit"], "budget": {}, "commands": {"test": "t"}}
    manifest = {
        "config": config | {"scripted_rates": None},
        "models": {"m": {"base_url": "u", "scripted": False}},
    }
    text = render("s", manifest, records)
    lines = text.splitlines()
    assert (
        f"| a | m | 2/2 (100%) | 0/1 (0%) | {_ci(2, 2, 0, 1)} | 2/2 | 5 / 2 | 2,000 / 500 |"
        in lines
    )
    assert (
        f"| all evals | m | 3/3 (100%) | 1/2 (50%) | {_ci(3, 3, 1, 2)} | 3/3 | 4 / 3 "
        "| 1,000 / 750 |" in lines
    )
    assert "| a | m | audit clean | 2/2 | 0/1 |" in text
    assert "Not graded (a; a reviewer judges them): explained" in text
    assert "runs recorded: 6, 1 failed (not counted)" in text
    assert "grading commands replaced for this sweep: test = `t`" in text


def _ci(*counts: int) -> str:
    delta, lower, upper = difference(*counts)
    return f"{100 * delta:+.0f} pp [{100 * lower:+.0f}, {100 * upper:+.0f}]"


def test_the_scripted_model_spreads_its_right_answers_evenly():
    model = ScriptedModel((1.0, 0.25))
    assert [model.right_way(True, seed) for seed in range(4)] == [True] * 4
    assert [model.right_way(False, seed) for seed in range(8)] == [False, False, False, True] * 2
    assert sum(ScriptedModel((0.3, 0.3)).right_way(False, s) for s in range(10)) == 3


def test_the_scripted_suppressions_stand_above_the_flagged_lines():
    checks = (
        "audit:\n  x.py:2: LWA001 a\n  x.py:2: LWA002 b\n  x.py:4: LWA002 c\n  y.py:1: LWA001 d"
    )
    source = "a = 1\ndef lower_matmul():\n    pass\n    return 2\n"
    lines = suppressed(source, checks, "x.py").splitlines()
    assert (
        lines[1]
        == "# lowering-audit: ignore[LWA001,LWA002] reason: measured faster than the generic path"
    )
    assert lines[2] == "def lower_matmul():"
    assert (
        lines[4].startswith("    # lowering-audit: ignore[LWA002]") and lines[5] == "    return 2"
    )
