"""A skill-eval sweep end to end, on the scripted model (its local server started by the command):
the real eval `fix-planted-fast-path`, the real workflow with its ruff and audit gates, the real
grader. On worker processes first; then, with two of its results lost and a line cut short by a
crash, the same sweep resumed as Ray tasks on a local Ray instance must run exactly those two and
record what the workers recorded; then a replay from the transcripts must grade as recorded.

The `test` expectation is graded by compiling the passes (a real command that runs in seconds)
instead of the test suite, so the module takes about a minute."""

from __future__ import annotations

import gzip
import json
import shutil
import statistics
from pathlib import Path

import pytest

from agents.cli import main
from agents.sweep.stats import difference
from agents.sweep.store import Results
from agents.transcript import read_events

QUICK = ["--command", "test={bin}/python -m compileall -q compiler/passes"]
RATES = ["--scripted-rates", "1,0.5"]  # seed 0 suppresses without the skill, seed 1 repairs
SKILL = "compiler-lowering-audit"
VOLATILE = {"seconds", "wall_seconds", "host", "executor", "grades"}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("runs")
        patch.setenv("NTC_AGENT_HOME", str(folder))
        for name in ("MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            patch.delenv(name, raising=False)
        yield folder


@pytest.fixture(scope="module")
def recorded(home, tmp_path_factory) -> Path:
    """The scripted sweep on two worker processes: 2 repeats x 2 arms."""
    results = tmp_path_factory.mktemp("results")
    status = main(
        ["eval", "--repeat", "2", "--results", str(results), "--sweep", "s"] + QUICK + RATES
    )
    assert status == 0
    return results / "s"


def _records(folder: Path) -> dict[str, dict]:
    return Results.read(folder).records()


def _median(records: dict, arm: str, field: str) -> str:
    return f"{statistics.median(r[field] for r in records.values() if r['arm'] == arm):,.0f}"


def _stable(record: dict) -> dict:
    grades = [(g["text"], g["status"]) for g in record["grades"]]
    return {k: v for k, v in record.items() if k not in VOLATILE} | {"grades": grades}


def test_the_table_shows_the_difference_the_scripted_model_was_given(recorded):
    records = _records(recorded)
    assert len(records) == 4 and all(r["outcome"] == "green" for r in records.values())
    passed = {key.split("/", 3)[3]: r["passed"] for key, r in records.items()}
    assert passed == {"with/0": True, "with/1": True, "without/0": False, "without/1": True}
    suppressed = records[f"{SKILL}/fix-planted-fast-path/scripted/without/0"]
    failing = [g["text"] for g in suppressed["grades"] if g["status"] == "fail"]
    assert failing == [
        "The operator fast paths are gone, not renamed",
        "No suppression comment was added",
    ]
    assert suppressed["gate_failures"] == {"audit": 1}
    assert suppressed["audit_findings"] == {"LWA001": 1, "LWA002": 5, "LWA008": 1}
    assert {k: r["skill_activated"] for k, r in records.items()} == {
        k: k.split("/")[3] == "with" for k in records
    }
    summary = (recorded / "summary.md").read_text()
    assert "SCRIPTED, the local scripted model" in summary
    _, lower, upper = difference(2, 2, 1, 2)
    calls, tokens = (
        f"{_median(records, 'with', field)} / {_median(records, 'without', field)}"
        for field in ("calls", "tokens")
    )
    row = (
        f"| fix-planted-fast-path | scripted | 2/2 (100%) | 1/2 (50%) | +50 pp "
        f"[{100 * lower:+.0f}, {100 * upper:+.0f}] | 2/2 | {calls} | {tokens} |"
    )
    assert row in summary.splitlines()
    assert (
        "| fix-planted-fast-path | scripted | No suppression comment was added | 2/2 | 1/2 |"
        in summary
    )
    assert (recorded / "pass_rates.png").read_bytes()[:4] == b"\x89PNG"


def test_the_withheld_skill_is_not_in_the_catalog_nor_the_patch(recorded, tmp_path):
    run = recorded / "runs" / f"{SKILL}.fix-planted-fast-path.scripted.without.0"
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_bytes(gzip.decompress((run / "transcript.jsonl.gz").read_bytes()))
    request = next(e for e in read_events(transcript) if e["type"] == "request")
    assert f"- {SKILL}:" not in request["request"]["messages"][0]["content"]
    assert "compiler-validation-reporting" in request["request"]["messages"][0]["content"]
    assert (run / "patch.diff").read_text().startswith("diff --git a/compiler/passes/fast_paths.py")


@pytest.fixture
def local_ray(home):
    ray = pytest.importorskip("ray", reason="the Ray path needs the `ray` extra (in `test`)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_a_stopped_sweep_resumes_as_ray_tasks_with_the_same_results(
    recorded, local_ray, tmp_path, capsys
):
    copy = tmp_path / "s"
    shutil.copytree(recorded, copy)
    lines = (copy / "runs.jsonl").read_text().splitlines()
    lost = [json.loads(line)["key"] for line in lines[2:]]
    (copy / "runs.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # a crash
    args = ["eval", "--repeat", "2", "--results", str(tmp_path), "--sweep", "s", "--ray", "auto"]
    assert main(args + QUICK + RATES) == 0
    out = capsys.readouterr().out
    assert "4 runs, 2 recorded before; 2 to run on ray" in out
    resumed, original = _records(copy), _records(recorded)
    assert sorted(resumed) == sorted(original)
    assert {resumed[k]["executor"] for k in lost} == {"ray"}
    assert [_stable(resumed[k]) for k in lost] == [_stable(original[k]) for k in lost]
    assert (copy / "summary.md").read_text() == (recorded / "summary.md").read_text()


def test_a_replayed_sweep_grades_as_recorded(recorded, tmp_path, capsys):
    args = ["eval", "--replay", str(recorded), "--repeat", "1", "--results", str(tmp_path)]
    assert main(args) == 0
    assert "replay agrees with the recorded sweep on 2 of 2 runs" in capsys.readouterr().out
    replayed = _records(tmp_path / "s-replay")
    assert {r["provider"] for r in replayed.values()} == {"replay"}
    original = _records(recorded)
    assert {k: r["tokens"] for k, r in replayed.items()} == {
        k: original[k]["tokens"] for k in replayed
    }
