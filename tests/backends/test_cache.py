"""Emitted sources live in a content-addressed directory and are imported once per variant."""

from __future__ import annotations

from pathlib import Path

from compiler.runtime.cache import cache_dir, load_module, source_file

SOURCE = "VALUE = 41 + 1\n"


def test_file_named_by_content_in_ntc_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    path = source_file(SOURCE)
    assert path.parent == tmp_path and path.read_text() == SOURCE
    assert source_file(SOURCE) == path
    assert source_file(SOURCE + "\n") != path


def test_default_dir(monkeypatch):
    monkeypatch.delenv("NTC_CACHE_DIR")
    assert cache_dir() == Path.home() / ".cache" / "ntc"


def test_module_imported_once_per_variant():
    module = load_module(SOURCE)
    assert module.VALUE == 42 and load_module(SOURCE) is module
    assert load_module(SOURCE, "other") is not module
