"""Where the compatibility runs' data is kept, and how it is read and written.

`data/compat/<corpus>/<backend>.jsonl.gz` holds a backend's records and
`data/compat/<corpus>/outcomes.json.gz` each test's outcome per column. Both are committed, so a
run goes on from them on any machine. gzip keeps them small; written without a time or a file
name in its header, records rewritten unchanged are the same bytes, and git sees no change.
"""

from __future__ import annotations

import gzip
from pathlib import Path

from compiler.compat.corpus import PROJECT

DATA = PROJECT / "data" / "compat"
OUTCOMES = "outcomes.json.gz"


def records_file(folder: Path, backend: str) -> Path:
    """A backend's records, merged from its workers' shards at the end of each run."""
    return folder / f"{backend}.jsonl.gz"


def read(path: Path) -> str:
    return gzip.decompress(path.read_bytes()).decode("utf-8")


def write(path: Path, text: str) -> None:
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
