"""The compatibility runner on a tiny library of our own written for CUDA
(tests/fixtures/compat_library): its tests run unchanged on the CPU, with `ninetoothed` bound to
this compiler or to NineToothed itself, and each outcome lands in the records and the report."""

import ast
import json

import pytest

from compiler.compat import data, on_cpu, report, runner
from compiler.compat.corpus import PROJECT, prepare

LIBRARY = PROJECT / "tests" / "fixtures" / "compat_library"


def rewritten(source: str) -> str:
    return ast.unparse(on_cpu._OnCpu().visit(ast.parse(source)))


def test_the_device_moves_to_the_cpu():
    assert rewritten('x = torch.ones(3, device="cuda")') == "x = torch.ones(3, device='cpu')"
    assert rewritten('t.to("cuda:1")') == "t.to('cpu')"
    assert rewritten("ok = torch.cuda.is_available()") == "ok = True"
    assert rewritten("y = x.cuda()") == "y = x.cpu()"
    # Near misses stay: other strings, other calls, a `cuda` attribute that is not called.
    assert rewritten('name = "cudagraph"; f(torch.cuda)') == "name = 'cudagraph'\nf(torch.cuda)"
    assert rewritten("torch.cuda.device_count()") == "torch.cuda.device_count()"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Both columns once: our Triton backend and the reference."""
    folder = tmp_path_factory.mktemp("compat")
    argv = ["--corpus", str(LIBRARY), "--records", str(folder), "--timeout", "60"]
    argv += ["--backend", "triton,reference", "--report", str(folder / "compat.md")]
    assert runner.main(argv) == 0
    return folder


def records(folder, backend):
    """Records by test name (a file that did not import: by its path)."""
    lines = data.read(folder / "compat_library" / f"{backend}.jsonl.gz").splitlines()
    return {r["nodeid"].rpartition("::")[2]: r for r in map(json.loads, lines) if "nodeid" in r}


def test_each_outcome_is_recorded_with_its_kind(run):
    ours = records(run, "triton")
    assert [ours[f"test_scale[{n}]"]["outcome"] for n in (5, 64, 300)] == ["passed"] * 3
    assert sum(1 for name in ours if name.startswith(("test_a[", "test_b["))) == 4
    assert ours["test_double_is_wrong"]["kind"] == "mismatch"
    racing = ours["test_shift_right_in_place"]
    assert racing["kind"] == "mismatch" and "warned" not in ours["test_double_is_wrong"]
    assert "input, which the kernel writes, shares memory with output" in racing["warned"] or (
        "output, which the kernel writes, shares memory with input" in racing["warned"]
    )
    refused = ours["test_cube_root"]
    assert refused["kind"] == "refused" and "ntl.cbrt is not supported" in refused["message"]
    assert ours["test_skipped_by_the_library"]["outcome"] == "skipped"
    assert ours["test_naming"]["outcome"] == "passed"
    unimported = ours["tests/test_unimportable.py"]
    assert unimported["kind"] == "import" and "ninetoothed.not_a_module" in unimported["message"]
    reference = records(run, "reference")
    assert reference["test_scale[300]"]["outcome"] == "passed"
    assert reference["test_double_is_wrong"]["kind"] == "mismatch"


def test_the_report_judges_against_the_reference(run):
    text = (run / "compat.md").read_text()
    assert "| triton | 13 | 8 | 4 | 1 | 8/8 (100.0%) |" in text
    assert "| unimportable | 0/1/0 | 0/1/0 |" in text
    assert "| scale | 3/3/1 | 3/3/1 |" in text
    assert "refused: CompileError:" in text and "mismatch: AssertionError:" in text
    assert "mismatch after OverlapWarning: @scaled: output, which the kernel writes" in text
    outcomes = json.loads(data.read(next(run.glob("*/outcomes.json.gz"))))["outcomes"]
    assert outcomes["triton"]["tests/test_scale.py::test_scale[64]"] == "passed"


def test_failures_that_differ_only_in_values_are_one_reason():
    """Two allclose failures of one operator whose messages differ in the compared tensors and
    an object address group as one reason; a different assertion stays apart."""

    def failure(nodeid: str, message: str) -> dict:
        return {"nodeid": nodeid, "outcome": "failed", "kind": "mismatch", "message": message}

    allclose = "AssertionError: assert False / + where False = <built-in method allclose of "
    records = [
        failure("tests/test_sdpa.py::t[0]", allclose + "type at 0x7fa2cf>(tensor([[0.06, 0.51]])"),
        failure("tests/test_sdpa.py::t[1]", allclose + "type at 0x7fddc1>(tensor([[1.14, -0.2]])"),
        failure("tests/test_sort.py::t[0]", "AssertionError: assert (3 == 4)"),
    ]
    lines = report._grouped(records)
    assert lines[0] == f"- 2 x `mismatch: {allclose}type>(...)` (sdpa)"
    assert lines[1] == "- 1 x `mismatch: AssertionError: assert (3 == 4)` (sort)"


def test_sample_and_resume(tmp_path, capsys):
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    argv += [
        "--report",
        str(tmp_path / "r.md"),
        "-k",
        "test_scale and not double and not cube and not skipped and not shift",
    ]
    assert runner.main([*argv, "--sample", "1"]) == 0
    assert list(records(tmp_path, "triton")) == ["test_scale[5]"]
    assert runner.main([*argv, "--sample", "2", "--resume"]) == 0
    assert list(records(tmp_path, "triton")) == ["test_scale[5]", "test_scale[300]"]
    capsys.readouterr()
    assert runner.main([*argv, "--sample", "2", "--resume"]) == 0  # nothing left to run
    assert "exited" not in capsys.readouterr().out
    assert list(records(tmp_path, "triton")) == ["test_scale[5]", "test_scale[300]"]


def test_resume_keeps_the_shards_of_a_stopped_run(run, tmp_path):
    """A run killed before it merged its shards: their whole lines count, a cut-off last one does
    not, and only the tests they lack run again."""
    folder = tmp_path / "compat_library"
    folder.mkdir()
    recorded = data.read(run / "compat_library" / "triton.jsonl.gz").splitlines()
    tests = [line for line in recorded if "nodeid" in line]
    header = next(line for line in recorded if "collected" in line)
    (folder / "triton.0.part").write_text("\n".join([header, *tests[:-1]]) + "\n" + tests[-1][:9])
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    assert runner.main([*argv, "--report", str(tmp_path / "r.md"), "--resume"]) == 0
    lines = map(json.loads, data.read(folder / "triton.jsonl.gz").splitlines())
    assert [r["collected"] for r in lines if "collected" in r][1:] == [1]  # the cut-off test only
    assert set(records(tmp_path, "triton")) == set(records(run, "triton"))
    assert not list(folder.glob("*.part"))


def test_a_resumption_stopped_before_it_merged_loses_nothing(run, tmp_path):
    """A `--resume` run killed before its merge holds the records it kept only in its skip list
    (its merged file is gone): resumed again, they are kept, not run again."""
    folder = tmp_path / "compat_library"
    folder.mkdir()
    kept = data.read(run / "compat_library" / "triton.jsonl.gz")
    (folder / "triton.done.jsonl").write_text(kept)
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    assert runner.main([*argv, "--report", str(tmp_path / "r.md"), "--resume"]) == 0
    lines = list(map(json.loads, data.read(folder / "triton.jsonl.gz").splitlines()))
    runs_before = kept.count('"collected"')
    collected = [r["collected"] for r in lines if "collected" in r]
    assert len(collected) > runs_before and not any(collected[runs_before:])  # none ran again
    assert records(tmp_path, "triton") == records(run, "triton")
    assert not (folder / "triton.done.jsonl").exists()


def test_retry_failed_runs_only_the_failures_again(run, tmp_path):
    folder = tmp_path / "compat_library"
    folder.mkdir()
    recorded = data.read(run / "compat_library" / "triton.jsonl.gz")
    data.write(folder / "triton.jsonl.gz", recorded)
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    assert runner.main([*argv, "--report", str(tmp_path / "r.md"), "--retry-failed"]) == 0
    lines = data.read(folder / "triton.jsonl.gz").splitlines()
    again = ("test_double_is_wrong", "test_cube_root", "test_shift_right_in_place")
    assert json.loads(lines[-1])["nodeid"].endswith(again)
    assert sum('"collected": 3' in line for line in lines) == 1  # the three failures ran again
    assert set(records(tmp_path, "triton")) == set(records(run, "triton"))


def test_failed_on_runs_the_reference_on_what_a_backend_failed(run, tmp_path, capsys):
    folder = tmp_path / "compat_library"
    folder.mkdir()
    data.write(folder / "triton.jsonl.gz", data.read(run / "compat_library" / "triton.jsonl.gz"))
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "reference"]
    argv += ["--report", str(tmp_path / "r.md")]
    assert runner.main([*argv, "--failed-on", "cuda"]) == 2
    assert "cuda has no records" in capsys.readouterr().err
    assert runner.main([*argv, "--failed-on", "triton"]) == 0
    failed = {n for n, r in records(tmp_path, "triton").items() if r["outcome"] == "failed"}
    assert set(records(tmp_path, "reference")) == failed
    unimportable = "tests/test_unimportable.py"
    assert failed == {"test_double_is_wrong", "test_cube_root", "test_shift_right_in_place"} | {
        unimportable
    }
    text = (tmp_path / "r.md").read_text()
    assert "| reference | " in text and "failed on triton |" in text
    assert "Not yet run by the reference: 9 tests, here 8 passed, 0 failed, 1 skipped." in text


def test_records_rewritten_unchanged_are_the_same_bytes(run, tmp_path):
    """The committed records are gzip with no time and no file name in its header: writing them
    again from what they hold changes nothing git would see."""
    path = run / "compat_library" / "triton.jsonl.gz"
    again = tmp_path / "triton.jsonl.gz"
    data.write(again, data.read(path))
    assert again.read_bytes() == path.read_bytes()
    assert path.read_bytes()[3:8] == bytes(5)  # no flags (no file name), mtime 0


def test_bad_corpus_and_backend_are_refused(tmp_path, capsys):
    assert runner.main(["--corpus", str(tmp_path / "none")]) == 2
    assert "not a folder or a tarball" in capsys.readouterr().err
    assert runner.main(["--corpus", str(LIBRARY), "--backend", "cobol"]) == 2
    assert "unknown ['cobol']" in capsys.readouterr().err


def test_a_folder_corpus_is_read_in_place():
    corpus = prepare(LIBRARY)
    assert corpus.root == LIBRARY and corpus.import_paths == [LIBRARY, LIBRARY / "src"]


def test_importing_the_plugin_binds_nothing():
    """Only a run the runner starts binds `ninetoothed`; the rest of a test session keeps the
    real one (the DSL oracle tests compare against it)."""
    import sys

    import ninetoothed

    import compiler.compat.plugin  # noqa: F401

    assert sys.modules["ninetoothed"] is ninetoothed
    assert ninetoothed.__file__.endswith("ninetoothed/__init__.py")


def test_workers_run_the_same_tests_as_one_process(run, tmp_path):
    """Test ids that draw random sizes at collection depend on what was imported before: each
    worker collects every file, so two workers run exactly the tests one process runs."""
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    assert runner.main([*argv, "--report", str(tmp_path / "r.md"), "--jobs", "2"]) == 0
    assert set(records(tmp_path, "triton")) == set(records(run, "triton"))


def test_ray_tasks_record_what_local_workers_record(run, tmp_path):
    """`--ray local`: one Ray task per test file's share, the corpus shipped as a tarball through
    Ray's object store and unpacked on the node; the same outcomes as the local workers."""
    pytest.importorskip("ray")
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    argv += ["--ray", "local", "--jobs", "2", "--timeout", "60", "--report", str(tmp_path / "r.md")]
    assert runner.main(argv) == 0
    by_ray = {name: r["outcome"] for name, r in records(tmp_path, "triton").items()}
    assert by_ray == {name: r["outcome"] for name, r in records(run, "triton").items()}
    assert not list((tmp_path / "compat_library").glob("*.part"))


def test_retry_failed_keeps_the_failures_its_selection_leaves_out(run, tmp_path):
    """`--retry-failed -k X` runs the failures X selects again; the others stay recorded."""
    folder = tmp_path / "compat_library"
    folder.mkdir()
    data.write(folder / "triton.jsonl.gz", data.read(run / "compat_library" / "triton.jsonl.gz"))
    argv = ["--corpus", str(LIBRARY), "--records", str(tmp_path), "--backend", "triton"]
    argv += ["--report", str(tmp_path / "r.md"), "--retry-failed", "-k", "test_cube_root"]
    assert runner.main(argv) == 0
    headers = [json.loads(line) for line in data.read(folder / "triton.jsonl.gz").splitlines()]
    headers = [header for header in headers if "collected" in header]
    assert headers[-1]["collected"] == 1  # the one selected failure ran
    assert set(records(tmp_path, "triton")) == set(records(run, "triton"))
