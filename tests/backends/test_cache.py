"""Emitted sources live in a content-addressed directory and are imported once per variant."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.runtime.cache import CacheError, cache_dir, load_module, source_file

SOURCE = "VALUE = 41 + 1\n"


def test_file_named_by_content_in_ntc_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    path = source_file(SOURCE)
    assert path.parent == tmp_path and path.read_text() == SOURCE
    assert source_file(SOURCE) == path
    assert source_file(SOURCE + "\n") != path


def test_a_file_cut_short_is_written_again(tmp_path, monkeypatch):
    """A cut source still imports (a kernel cut short, its stores gone): its name is its digest,
    so the cache checks what it holds."""
    monkeypatch.setenv("NTC_CACHE_DIR", str(tmp_path))
    path = source_file(SOURCE * 2)
    path.write_text(SOURCE)
    assert source_file(SOURCE * 2) == path and path.read_text() == SOURCE * 2


def test_default_dir(monkeypatch):
    monkeypatch.delenv("NTC_CACHE_DIR")
    assert cache_dir() == Path.home() / ".cache" / "ntc"


def test_module_imported_once_per_variant():
    module = load_module(SOURCE)
    assert module.VALUE == 42 and load_module(SOURCE) is module
    assert load_module(SOURCE, "other") is not module


def test_a_cache_dir_that_cannot_be_written_is_named_with_the_fix(tmp_path, monkeypatch):
    blocked = tmp_path / "a_file"
    blocked.write_text("")
    monkeypatch.setenv("NTC_CACHE_DIR", str(blocked))
    with pytest.raises(
        CacheError, match=r"a_file \(\$NTC_CACHE_DIR\) cannot be written: .*set NTC_"
    ):
        source_file(SOURCE)


def test_a_relative_cache_dir_is_made_absolute(tmp_path, monkeypatch):
    """The TVM worker reads the files, in its own working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NTC_CACHE_DIR", "relative")
    assert cache_dir() == tmp_path / "relative"
