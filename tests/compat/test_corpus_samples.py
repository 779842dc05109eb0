"""The corpora as `make compat` runs them, the first test of every test file on every backend:
ntops (InfiniTensor's NineToothed operator library) and NineToothed 0.26's own test suite. Each
test that passed in the committed run (data/compat/<corpus>/outcomes.json.gz; its settings are in
the corpus's report under bench/results/) must pass again.
Skipped, with the reason, where a corpus is not next to the project (see
compiler/compat/corpus.py)."""

import json

import pytest

from compiler.backends.registry import TARGETS
from compiler.compat import data, runner
from compiler.compat.corpus import default_corpus, prepare

# (tarball pattern, the committed run's -k, how many passes each backend must check at least)
CORPORA = {
    "ntops": ("ntops-*.tar.gz", None, 60),  # most of the 76 files' first tests
    # pad's 2026 x 1207 case takes minutes per test in Triton's interpreter, NineToothed's too
    "ninetoothed": ("ninetoothed-tests-*.tar.gz", "not shape0", 12),
}


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_a_sample_passes_where_the_committed_run_passed(name, tmp_path):
    pattern, keyword, minimum = CORPORA[name]
    corpus = default_corpus(pattern)
    if corpus is None:
        pytest.skip(f"no {pattern} in ../shared/corpora: the compatibility sample cannot run")
    outcomes = data.DATA / prepare(corpus).name / data.OUTCOMES
    committed = json.loads(data.read(outcomes))["outcomes"]
    backends = sorted(TARGETS)
    argv = ["--corpus", str(corpus), "--records", str(tmp_path), "--sample", "1", "--jobs", "2"]
    argv += ["--backend", ",".join(backends), "--timeout", "120"]
    argv += ["-k", keyword] if keyword else []
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
    assert checked >= len(backends) * minimum
