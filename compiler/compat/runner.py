"""`python -m compiler.compat` (`make compat`): a NineToothed library's own tests, per backend.

Each backend (and the reference, NineToothed 0.26 in Triton's interpreter) is a pytest run over
the corpus's tests in fresh processes, split by test file across `--jobs` workers. Outcomes are
appended as JSON lines to `data/compat/<corpus>/<backend>.<worker>.part` while the run goes and
merged into the gzipped `<backend>.jsonl.gz` at its end; progress is printed from them; `--resume`
keeps what a stopped run recorded. The records are committed (see `data.py`), so a run too long
for one sitting goes on from them on any machine, and the report can be written again from them
(`--report-only`). The report, and the outcomes table beside the records, are written at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from compiler.backends.registry import TARGETS
from compiler.compat import data, report
from compiler.compat.corpus import PROJECT, REFERENCE, Corpus, default_corpus, prepare
from compiler.compat.shards import Shard, record_counts, start_shard, test_files
from compiler.errors import CompileError

RECORDS = data.DATA
REPORT = PROJECT / "bench" / "results" / "compat.md"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m compiler.compat",
        description="Run a NineToothed library's own pytest suite with ninetoothed bound to this "
        "compiler, per backend, on the CPU, and write a per-operator report.",
    )
    parser.add_argument(
        "--corpus", help="a library folder (with tests/) or a tarball; default: ../shared/corpora"
    )
    parser.add_argument(
        "--backend",
        default="all",
        help=f"one of {', '.join(sorted(TARGETS))}, {REFERENCE}, or all (the default: every "
        "backend and the reference)",
    )
    parser.add_argument("--sample", type=int, default=0, help="run N tests per test file (0: all)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per test (0: none)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes per backend")
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run each test file's share as a Ray task: a cluster's address, auto (the cluster "
        "this machine belongs to) or local (a Ray instance here); records stream back as tasks end",
    )
    parser.add_argument("--resume", action="store_true", help="keep a stopped run's outcomes")
    parser.add_argument(
        "--retry-failed",
        action="store_true",
        help="keep the recorded outcomes but the failures, and run those again",
    )
    parser.add_argument("-k", dest="keyword", help="pytest -k expression selecting tests")
    parser.add_argument(
        "--failed-on",
        metavar="BACKENDS",
        help="run only the tests that failed on any of these backends (comma-separated) in their "
        "records: the reference on what ours fail first, the rest with --resume later",
    )
    parser.add_argument(
        "--report-only", action="store_true", help="run nothing: write the report from the records"
    )
    parser.add_argument("--report", default=str(REPORT), help="where the Markdown report goes")
    parser.add_argument(
        "--records",
        default=str(RECORDS),
        help="folder for the records (one folder per corpus) and the outcomes table",
    )
    return parser


def backends(choice: str) -> list[str]:
    known = [REFERENCE, *sorted(TARGETS, key=_backend_order)]
    if choice == "all":
        return known
    chosen = [b.strip() for b in choice.split(",")]
    unknown = [b for b in chosen if b not in known]
    if unknown:
        raise CompileError(f"--backend {choice}: unknown {unknown}; choose from {', '.join(known)}")
    return chosen


def _backend_order(name: str) -> tuple:
    return (name != "triton", name)


def run_backend(corpus: Corpus, backend: str, args: argparse.Namespace, records: Path) -> Path:
    """One backend over the whole corpus; returns its records file."""
    only = _failed_on(args.failed_on, records, backend) if args.failed_on else None
    path = data.records_file(records, backend)
    previous = records / f"{backend}.done.jsonl"  # plain: the plugin reads it as the skip list
    kept, retried = None, []
    if args.resume or args.retry_failed:
        # A resumption stopped before it merged left what it kept in its skip list: keep it too.
        earlier = [previous] if previous.exists() else []
        lines = _recorded_lines(path, [*earlier, *sorted(records.glob(f"{backend}.*.part"))])
        failed = [
            args.retry_failed and json.loads(line).get("outcome") == "failed" for line in lines
        ]
        kept = [line for line, again in zip(lines, failed, strict=True) if not again]
        retried = [line for line, again in zip(lines, failed, strict=True) if again]
    previous.unlink(missing_ok=True)
    if kept is not None:
        previous.write_text("".join(kept))
    path.unlink(missing_ok=True)
    files = test_files(corpus)
    # Every worker collects every file, in the library's own order, and runs its share: test ids
    # that draw random sizes at collection come out the same however many workers there are.
    count = len(files) if args.ray else min(args.jobs, len(files))
    shards = [Shard(backend, index, count, _settings(args)) for index in range(count)]
    for index in range(count):
        (records / f"{backend}.{index}.part").unlink(missing_ok=True)
    if args.ray:
        from compiler.compat import ray_shards  # Ray is an optional extra

        ray_shards.run(args.ray, args.jobs, corpus, shards, records, previous, only)
        parts = [records / f"{backend}.{index}.part" for index in range(count)]
        return _merge(path, previous, [part for part in parts if part.exists()], retried)
    workers = []
    for shard in shards:
        part = records / f"{backend}.{shard.index}.part"
        log = (records / f"{backend}.{shard.index}.log").open("w")
        workers.append((start_shard(corpus, shard, part, previous, only, log), part, log))
    _follow(backend, workers)
    return _merge(path, previous, [r for _, r, _ in workers if r.exists()], retried)


def _merge(path: Path, previous: Path, shards: list[Path], retried: list[str]) -> Path:
    """The kept records and the shards' into the backend's records file, with each failure a
    retry did not run again (one `-k` left out) as it was."""
    earlier = previous.read_text() if previous.exists() else ""
    new = "".join(shard.read_text() for shard in shards)
    ran = {json.loads(line).get("nodeid") for line in _recorded_lines_of(new)}
    unrun = [line for line in retried if json.loads(line)["nodeid"] not in ran]
    data.write(path, earlier + "".join(unrun) + new)
    for shard in [*shards, previous]:  # only once the merged file holds them
        shard.unlink(missing_ok=True)
    return path


def _settings(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    return (
        ("TIMEOUT", str(args.timeout)),
        ("SAMPLE", str(args.sample)),
        ("KEYWORD", args.keyword or ""),
        ("FAILED_ON", args.failed_on or ""),
        ("COMMIT", _commit()),
    )


def _failed_on(choice: str, records: Path, backend: str) -> Path:
    """A file of the test ids that failed on any backend of `choice`, for the plugin to keep."""
    failed = set()
    for other in backends(choice):
        path = data.records_file(records, other)
        if not path.exists():
            raise CompileError(
                f"--failed-on {choice}: {other} has no records in {records}; run it first"
            )
        failed |= {n for n, r in report.load(path).items() if r["outcome"] == "failed"}
    only = records / f"{backend}.only"
    only.write_text("".join(f"{nodeid}\n" for nodeid in sorted(failed)))
    return only


def _recorded_lines(path: Path, parts: list[Path]) -> list[str]:
    """The records of earlier runs: the merged file and the shards of a run that was stopped before
    it merged them, less a last line cut short by the stop."""
    texts = [data.read(path)] if path.exists() else []
    texts += [part.read_text() for part in parts]
    return [line for text in texts for line in _recorded_lines_of(text)]


def _recorded_lines_of(text: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        try:
            json.loads(line)
        except json.JSONDecodeError:
            continue
        lines.append(line + "\n")
    return lines


def _commit() -> str:
    result = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=PROJECT, capture_output=True, text=True
    )
    return result.stdout.strip() or "unknown"


PROGRESS_SECONDS = 15.0


def _follow(backend: str, workers: list) -> None:
    """Wait for the workers, printing the counts every PROGRESS_SECONDS while they change."""
    started = time.monotonic()
    shown, shown_at = None, started
    while True:
        running = any(p.poll() is None for p, _, _ in workers)
        counts = record_counts([r for _, r, _ in workers])
        now = time.monotonic()
        if not running or (counts != shown and now - shown_at >= PROGRESS_SECONDS):
            print(report.progress_line(backend, counts, now - started), flush=True)
            shown, shown_at = counts, now
        if not running:
            break
        time.sleep(1.0)
    for process, _, log in workers:
        log.close()
        # 1: some test failed, which the records hold; 5: nothing left to run (a resumed run)
        if process.returncode not in (0, 1, 5):
            print(f"  {backend}: a worker exited with {process.returncode}; see {log.name}")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        origin = args.corpus or default_corpus()
        if origin is None:
            raise CompileError(
                "no corpus given and none in ../shared/corpora; pass --corpus DIR_OR_TARBALL "
                "(make compat CORPUS=...)"
            )
        corpus = prepare(origin)
        chosen = backends(args.backend)
    except CompileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    records = Path(args.records).resolve() / corpus.name  # the workers run in the corpus
    records.mkdir(parents=True, exist_ok=True)
    print(f"corpus {corpus.name} ({corpus.root}); {len(test_files(corpus))} test files")
    try:
        for backend in [] if args.report_only else chosen:
            run_backend(corpus, backend, args, records)
    except CompileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    columns = [b for b in backends("all") if data.records_file(records, b).exists()]
    results = {b: report.load(data.records_file(records, b)) for b in columns}
    runs = {b: report.runs(data.records_file(records, b)) for b in columns}
    target = Path(args.report)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(report.render(corpus, results, runs))
    outcomes = records / data.OUTCOMES
    data.write(outcomes, report.outcomes_json(corpus, results))
    print(f"wrote {target} and {outcomes}")
    return 0
