"""`ntc trace --html`: one self-contained page with each pass, its diff, op counts, timings and
the emitted source; checked against the compiled artifacts' own traces."""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from html import escape, unescape
from pathlib import Path
from types import SimpleNamespace

import pytest

from compiler.cli import main
from compiler.cli.program import program_kernels
from compiler.ir import parse_kernel
from compiler.viewer import build_trace_page, line_diff

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "compiler" / "suite" / "programs"
CASES = [("vector_add", "triton"), ("matmul", "cuda")]
# an op at the start of a printed IR line: `%3 = arith.add(...)` or `mem.store(...)`
OP_LINE = re.compile(r"\s*(?:%\w+(?:, %\w+)* = )?([a-z_]+\.[a-z_0-9]+)\(")


def page_json(html: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="ntc-trace-data">(.*?)</script>', html, re.S
    )
    assert match, "the page embeds its data as JSON"
    return json.loads(match.group(1))


def compiled(program: str, backend: str):
    handles = program_kernels(str(PROGRAMS / f"{program}.py"), backend, "cpu")
    return {name: handle.compile_declared("f32") for name, handle in handles.items()}


@pytest.fixture(scope="module", params=CASES, ids=[f"{p}-{b}" for p, b in CASES])
def traced(request):
    """A page built from artifacts the test keeps (a second compile in the same process may
    number block-size symbols differently, so the page is compared with its own artifacts)."""
    program, backend = request.param
    artifacts = compiled(program, backend)
    html = build_trace_page(artifacts, context={"file": f"{program}.py", "backend": backend})
    return SimpleNamespace(html=html, data=page_json(html), artifacts=artifacts)


@pytest.mark.parametrize(("program", "backend"), CASES)
def test_cli_writes_the_page(program, backend, tmp_path, capsys):
    out = tmp_path / f"{program}.html"
    args = ["trace", str(PROGRAMS / f"{program}.py"), "--backend", backend, "--html", str(out)]
    assert main(args) == 0
    assert f"wrote {out}: 1 kernel(s)" in capsys.readouterr().out
    html = out.read_text(encoding="utf-8")
    (kernel,) = page_json(html)["kernels"]
    (artifact,) = compiled(program, backend).values()
    assert [p["pass"] for p in kernel["passes"]] == [e["pass"] for e in artifact.trace]
    assert (kernel["name"], kernel["backend"], kernel["device"]) == (program, backend, "cpu")
    assert "ssa-sha256: " in kernel["source"] and kernel["source"].strip()
    assert f'<span class="ctx-key">backend</span> {backend}' in html


def test_every_pass_appears_in_order(traced):
    (artifact,) = traced.artifacts.values()
    (kernel,) = traced.data["kernels"]
    expected = [entry["pass"] for entry in artifact.trace]
    assert len(expected) >= 10
    assert [entry["pass"] for entry in kernel["passes"]] == expected
    listed = re.findall(r'<span class="step-name">(.*?)</span>', traced.html)
    assert [unescape(name.replace("<wbr>", "")) for name in listed] == ["input IR", *expected]
    for listed_entry, entry in zip(kernel["passes"], artifact.trace, strict=True):
        for field in ("category", "options", "changed", "verified"):
            assert listed_entry[field] == entry[field], (entry["pass"], field)


def test_diffs_are_the_lines_each_pass_added_and_removed(traced):
    (artifact,) = traced.artifacts.values()
    (kernel,) = traced.data["kernels"]
    assert kernel["input_ir"] == artifact.initial_ssa
    texts = [artifact.initial_ssa] + [entry["ir"] for entry in artifact.trace]
    changed = 0
    for before, after, shown in zip(texts, texts[1:], kernel["passes"], strict=False):
        old, new = before.splitlines(), after.splitlines()
        rows = shown["diff"]
        # the diff replays: kept + removed lines are the old IR, kept + added ones the new
        assert [r[3] for r in rows if r[0] in " -"] == old, shown["pass"]
        assert [r[3] for r in rows if r[0] in " +"] == new, shown["pass"]
        added = Counter(r[3] for r in rows if r[0] == "+")
        removed = Counter(r[3] for r in rows if r[0] == "-")
        # difflib's own diff of the two trace entries marks the same lines, as many times
        expected = list(difflib.unified_diff(old, new, lineterm="", n=0))[2:]
        expected_added = Counter(line[1:] for line in expected if line.startswith("+"))
        expected_removed = Counter(line[1:] for line in expected if line.startswith("-"))
        assert added - removed == expected_added - expected_removed, shown["pass"]
        assert removed - added == expected_removed - expected_added, shown["pass"]
        if before != after:
            changed += 1
            assert added or removed, shown["pass"]
        else:
            assert not added and not removed, shown["pass"]
        assert (shown["added"], shown["removed"]) == (sum(added.values()), sum(removed.values()))
        # one op per printed line: the diff's ops net out to the pass's op-count delta
        net = Counter()
        for tag, _, _, text in rows:
            match = OP_LINE.match(text)
            if match and tag != " ":
                net[match.group(1)] += 1 if tag == "+" else -1
        assert {op: n for op, n in net.items() if n} == shown["op_count_delta"], shown["pass"]
    assert changed >= 3


def test_op_counts_timings_and_source_are_on_the_page(traced):
    (artifact,) = traced.artifacts.values()
    (kernel,) = traced.data["kernels"]
    for shown, entry in zip(kernel["passes"], artifact.trace, strict=True):
        assert shown["op_counts"] == entry["op_counts"]
        assert shown["op_count_delta"] == entry["op_count_delta"]
        assert shown["seconds"] >= 0
    assert any(shown["op_count_delta"] for shown in kernel["passes"])
    assert kernel["total_seconds"] == pytest.approx(sum(p["seconds"] for p in kernel["passes"]))
    assert f"total {kernel['total_seconds']:.4f} s" in traced.html
    assert traced.html.count('class="timebar"') == len(artifact.trace)
    for op in {op for entry in artifact.trace for op in entry["op_counts"]}:
        assert f"<th>{escape(op)}</th>" in traced.html, op
    # the emitted source, HTML-escaped, line by line
    assert kernel["source"] == artifact.source
    for line in artifact.source.splitlines():
        assert f'<span class="text">{escape(line) or " "}</span>' in traced.html, line


def test_schedule_and_its_reason_come_from_the_kernel_attributes(traced):
    (artifact,) = traced.artifacts.values()
    (kernel,) = traced.data["kernels"]
    assert kernel["schedule"] == artifact.schedule
    for name, value in artifact.schedule.items():
        assert f'<span class="chip">{escape(name)}={value}</span>' in traced.html
    reason = parse_kernel(artifact.ssa).attrs.get("schedule_reason")
    assert kernel["schedule_reason"] == reason
    if reason:
        assert escape(reason) in traced.html
        setter = kernel["passes"][kernel["schedule_reason_pass"] - 1]
        assert "schedule_reason" in setter["ir"].partition("\n")[0]


def test_page_loads_nothing_from_the_network(traced):
    html = traced.html
    assert "http:" not in html and "https:" not in html
    assert not re.search(r"""(?:src|href|action|poster)\s*=\s*["']?\s*(?:[a-z]+:)?//""", html)
    assert not re.search(r"\b(?:src|href)\s*=", html), "no attribute loads a resource"
    assert not re.search(r"url\(|@import|<link\b|<img\b|<iframe\b|<object\b|<embed\b", html)
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    # two script elements (data, code), each closed once: no text closes one early
    assert html.count("<script") == 2 and html.count("</script>") == 2
    assert html.count("<style>") == 1 and html.count("</style>") == 1


def test_text_is_escaped_in_the_page_and_in_its_data():
    hostile = 'kernel @k() {\n  %0 = arith.constant() {value = "</script><b>&amp;"} : index\n}'
    artifact = SimpleNamespace(
        backend="b",
        device="cpu",
        kernel_name="k",
        source="// </script><img src=x onerror=alert(1)> & <style>",
        ssa=hostile,
        trace=[
            {
                "pass": "ssa.p<1>",
                "category": "x&y",
                "options": {"o": "</script>"},
                "ir": hostile,
                "op_counts": {"arith.constant": 1},
                "op_count_delta": {},
                "seconds": 0.001,
                "changed": False,
                "verified": True,
            }
        ],
        schedule={},
    )
    html = build_trace_page({"k<": artifact}, title="t</title>")
    assert "</script><" not in html and "<img" not in html and "<b>" not in html
    assert html.count("</script>") == 2 and html.count("</title>") == 1
    assert escape(artifact.source) in html and "ssa.p&lt;1&gt;" in html
    data = page_json(html)
    (kernel,) = data["kernels"]
    assert kernel["name"] == "k<" and kernel["source"] == artifact.source
    assert kernel["passes"][0]["ir"] == hostile
    # no input IR recorded: the first pass is shown whole, not diffed
    assert kernel["input_ir"] is None and kernel["passes"][0]["diff"] is None


def test_line_diff_rows():
    assert line_diff("a\nb\nc", "a\nc\nd") == [
        [" ", 1, 1, "a"],
        ["-", 2, 0, "b"],
        [" ", 3, 2, "c"],
        ["+", 0, 3, "d"],
    ]


TWO_KERNELS = """
import ninetoothed
from ninetoothed import Symbol, Tensor

BLOCK_SIZE = Symbol("BLOCK_SIZE", constexpr=True)


def arrangement(input, other, output, BLOCK_SIZE=BLOCK_SIZE):
    return input.tile((BLOCK_SIZE,)), other.tile((BLOCK_SIZE,)), output.tile((BLOCK_SIZE,))


def application(input, other, output):
    output = input + other  # noqa: F841


def difference(input, other, output):
    output = input - other  # noqa: F841


tensors = (Tensor(1), Tensor(1), Tensor(1))
subtract = ninetoothed.make(arrangement, difference, tensors)
"""


@pytest.fixture
def two_kernels(tmp_path):
    path = tmp_path / "two.py"
    path.write_text(TWO_KERNELS)
    return path


def test_cli_writes_every_kernel_of_the_file_or_the_one_asked_for(two_kernels, tmp_path, capsys):
    everything, one = tmp_path / "all.html", tmp_path / "one.html"
    assert main(["trace", str(two_kernels), "--html", str(everything), "-D", "BLOCK_SIZE=64"]) == 0
    assert f"wrote {everything}: 2 kernel(s)" in capsys.readouterr().out
    names = [kernel["name"] for kernel in page_json(everything.read_text())["kernels"]]
    assert sorted(names) == ["subtract", "two"]
    args = ["trace", str(two_kernels), "--kernel", "subtract", "--html", str(one)]
    assert main([*args, "-D", "BLOCK_SIZE=64", "--backend", "tilelang"]) == 0
    (kernel,) = page_json(one.read_text())["kernels"]
    assert (kernel["name"], kernel["backend"]) == ("subtract", "tilelang")
    assert "BLOCK_SIZE=64" in one.read_text()


def test_cli_unknown_kernel_lists_the_kernels_there_are(two_kernels, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["trace", str(two_kernels), "--kernel", "nope", "--html", str(out)]) == 1
    error = capsys.readouterr().err
    assert "no kernel named 'nope'" in error and "subtract, two" in error and "--kernel" in error
    assert not out.exists()


def test_cli_unwritable_page_names_the_fix(tmp_path, capsys):
    out = tmp_path / "missing" / "page.html"
    args = ["trace", str(PROGRAMS / "vector_add.py"), "--html", str(out)]
    assert main(args) == 1
    error = capsys.readouterr().err
    assert f"--html {out}" in error and "existing, writable folder" in error


def test_cli_requires_html():
    with pytest.raises(SystemExit) as exit_:
        main(["trace", str(PROGRAMS / "vector_add.py")])
    assert exit_.value.code == 2
