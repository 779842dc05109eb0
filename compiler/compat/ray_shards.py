"""`python -m compiler.compat --ray ADDRESS|auto|local`: a backend's run as Ray tasks, one per test
file's share (`shards.Shard`), so a team checks a compiler change against whole libraries on a
cluster in minutes (the connection is `compiler/cluster.py`, shared with the skill-eval sweep).

The corpus travels as a tarball in Ray's object store and is unpacked once per node into its build
cache (`corpus.prepare`, keyed by content); each task runs the same pytest process a local worker
runs and returns its records, which the driver writes to `<backend>.<index>.part` as tasks end and
merges as a local run does. A task that fails on Ray (a lost node) is tried once more; a task
that still fails is reported and its tests stay unrecorded, for a later `--resume` run.
"""

from __future__ import annotations

import io
import tarfile
import tempfile
import time
from pathlib import Path

from compiler import cluster
from compiler.compat import report
from compiler.compat.corpus import Corpus, prepare
from compiler.compat.shards import Shard, record_counts, start_shard
from compiler.errors import CompileError
from compiler.runtime.cache import cache_dir

LOG_TAIL = 20_000  # characters of a task's pytest output kept in `<backend>.<index>.log`


def run(
    address: str,
    local_cpus: int,
    corpus: Corpus,
    shards: list[Shard],
    records: Path,
    skip: Path,
    only: Path | None,
) -> None:
    try:
        started = cluster.connect(address, max(local_cpus, 1))
    except cluster.RayUnavailable as error:
        raise CompileError(str(error)) from None
    ray = cluster.ray_module()
    try:
        packed = ray.put(_packed(corpus))
        task = ray.remote(num_cpus=1, max_retries=1)(_run_shard)
        skipped = skip.read_text() if skip.exists() else ""
        wanted = only.read_text() if only is not None else None
        handles = {
            task.remote(packed, corpus.name, shard, skipped, wanted): shard for shard in shards
        }
        _collect(handles, records, shards[0].backend if shards else "")
    finally:
        if started:
            ray.shutdown()


def _collect(handles: dict, records: Path, backend: str) -> None:
    """Write each task's records as it ends, with a progress line."""
    begun, pending = time.monotonic(), list(handles)
    while pending:
        handle, result = cluster.next_done(pending)
        pending.remove(handle)
        shard = handles[handle]
        where = f"{backend}: shard {shard.index + 1}/{shard.count}"
        if isinstance(result, BaseException):
            print(f"  {where} failed on Ray ({type(result).__name__}: {result}); --resume runs it")
            continue
        text, log, code = result
        (records / f"{backend}.{shard.index}.part").write_text(text)
        (records / f"{backend}.{shard.index}.log").write_text(log)
        if code not in (0, 1, 5):  # as local workers: 1 some test failed, 5 nothing to run
            print(f"  {where}: pytest exited with {code}; see {backend}.{shard.index}.log")
        parts = sorted(records.glob(f"{backend}.*.part"))
        counts = record_counts(parts)
        print(report.progress_line(backend, counts, time.monotonic() - begun), flush=True)


def _run_shard(packed: bytes, name: str, shard: Shard, skipped: str, wanted: str | None):
    """On a Ray worker: (records, the end of pytest's output, its exit status)."""
    corpus = _on_this_node(packed, name)
    with tempfile.TemporaryDirectory(prefix="ntc-compat-shard-") as folder:
        folder = Path(folder)
        part, skip, log_file = folder / "records.jsonl", folder / "skip.jsonl", folder / "log"
        skip.write_text(skipped)
        only = None
        if wanted is not None:
            only = folder / "only.txt"
            only.write_text(wanted)
        with log_file.open("w") as log:
            code = start_shard(corpus, shard, part, skip, only, log).wait()
        text = part.read_text() if part.exists() else ""
        return text, log_file.read_text()[-LOG_TAIL:], code


def _packed(corpus: Corpus) -> bytes:
    """The corpus as a gzipped tarball: the user's tarball itself, or its folder packed."""
    if corpus.origin.is_file():
        return corpus.origin.read_bytes()
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(
            corpus.root,
            arcname=corpus.root.name,
            filter=lambda info: None if "__pycache__" in info.name else info,
        )
    return buffer.getvalue()


def _on_this_node(packed: bytes, name: str) -> Corpus:
    """The corpus unpacked on this node (once: `prepare` keys the cache by content)."""
    folder = cache_dir() / "compat" / "tarballs"
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        tarball = Path(scratch) / f"{name}.tar.gz"
        tarball.write_bytes(packed)
        corpus = prepare(tarball)
    return Corpus(name, corpus.root, corpus.origin)
