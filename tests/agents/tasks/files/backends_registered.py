"""A planted test over two backends, one of which the run is about (selected by parametrize id)."""

from pathlib import Path

import pytest


@pytest.mark.parametrize("backend", ["c", "cuda"])
def test_backend_is_registered(backend):
    assert Path(f"notes/{backend}.txt").exists(), f"notes/{backend}.txt is missing"
