"""ntops, InfiniTensor's NineToothed operator library, as `make compat` runs it: the first test of
every operator's file on every backend. Each test that passed in the committed run
(data/compat/<corpus>/outcomes.json.gz; its settings are in bench/results/compat.md) must pass
again.
Skipped, with the reason, where the corpus is not next to the project (see
compiler/compat/corpus.py)."""

import json

import pytest

from compiler.backends.registry import TARGETS
from compiler.compat import data, runner
from compiler.compat.corpus import default_corpus, prepare


@pytest.fixture(scope="module")
def corpus():
    found = default_corpus()
    if found is None:
        pytest.skip("no ntops corpus in ../shared/corpora: the compatibility sample cannot run")
    return found


def test_a_sample_of_ntops_passes_where_the_committed_run_passed(corpus, tmp_path):
    outcomes = data.DATA / prepare(corpus).name / data.OUTCOMES
    committed = json.loads(data.read(outcomes))["outcomes"]
    backends = sorted(TARGETS)
    argv = ["--corpus", str(corpus), "--records", str(tmp_path), "--sample", "1", "--jobs", "2"]
    argv += ["--backend", ",".join(backends), "--timeout", "120"]
    assert runner.main([*argv, "--report", str(tmp_path / "compat.md")]) == 0
    regressions, checked = [], 0
    for backend in backends:
        folder = next(tmp_path.glob(f"*/{backend}.jsonl.gz"))
        for line in data.read(folder).splitlines():
            record = json.loads(line)
            if "nodeid" not in record:
                continue
            before = committed.get(backend, {}).get(record["nodeid"])
            checked += before == "passed"
            if before == "passed" and record["outcome"] != "passed":
                regressions.append(f"{backend} {record['nodeid']}: {record.get('message', '')}")
    assert not regressions, "\n".join(regressions)
    assert checked >= len(backends) * 60  # most of the 76 files' first tests, on each backend
