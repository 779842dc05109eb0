"""[tool.lowering-audit]: paths, vocabulary, enabled rules and per-path overrides."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_support import FIXTURE_PROJECT, audit_snippet, codes

from audits.config import ConfigError, config_from_table, load_config, path_matches
from audits.discovery import discover_files
from audits.engine import NoFilesScanned, audit_project


def test_fixture_project_configuration_is_read():
    config = load_config(FIXTURE_PROJECT / "pyproject.toml")
    assert config.root == FIXTURE_PROJECT
    assert config.paths == ("minicc",)
    assert config.registry == "minicc.ir_registry:OPS"
    assert config.registry_path == "minicc/ir_registry.py"
    assert config.backends == ("triton", "cuda")


def test_nearest_configured_pyproject_is_found_from_a_subfolder():
    config = load_config(start=FIXTURE_PROJECT / "minicc" / "passes")
    assert config.root == FIXTURE_PROJECT


def test_unknown_keys_are_errors():
    with pytest.raises(ConfigError, match="unknown key"):
        config_from_table({"pathz": ["x"]}, root=Path("."))
    with pytest.raises(ConfigError, match="unknown key"):
        config_from_table({"overrides": [{"paths": ["x"], "disabled": []}]}, root=Path("."))
    with pytest.raises(ConfigError, match="list of strings"):
        config_from_table({"paths": "compiler"}, root=Path("."))


def test_vocabulary_can_be_extended_and_narrowed():
    assert not audit_snippet("def lower_fft(kernel): ...")
    assert codes(audit_snippet("def lower_fft(kernel): ...", **{"extend-vocabulary": ["fft"]}))
    assert not audit_snippet("def apply_rope(kernel): ...", **{"allow-words": ["rope"]})
    replaced = {"vocabulary": ["fft"]}
    assert not audit_snippet("def lower_matmul(kernel): ...", **replaced)


def test_rules_can_be_enabled_and_disabled():
    source = 'def lower_matmul(op):\n    return op.name == "softmax"'
    assert codes(audit_snippet(source)) == {"LWA001", "LWA002"}
    assert codes(audit_snippet(source, enable=["LWA002"])) == {"LWA002"}
    assert codes(audit_snippet(source, disable=["LWA002"])) == {"LWA001"}


def test_unknown_rule_codes_are_errors():
    with pytest.raises(ConfigError, match="unknown rule code"):
        audit_snippet("x = 1", disable=["LWA07"])


def test_overrides_apply_by_path_prefix_or_glob():
    table = {
        "overrides": [
            {"paths": ["compiler/frontend"], "allow-words": ["softmax"]},
            {"paths": ["compiler/backends/*/emit.py"], "disable": ["LWA001"]},
        ]
    }
    source = "def lower_softmax(kernel): ..."
    assert not audit_snippet(source, "compiler/frontend/primitives.py", **table)
    assert audit_snippet(source, "compiler/passes/x.py", **table)
    assert not audit_snippet(source, "compiler/backends/cuda/emit.py", **table)


@pytest.mark.parametrize(
    ("path", "pattern", "matches"),
    [
        ("compiler/ir/core.py", "compiler/ir", True),
        ("compiler/irx/core.py", "compiler/ir", False),
        ("compiler/backends/cuda/emit.py", "compiler/backends/*/*", True),
        ("compiler/backends/emitter.py", "compiler/backends/*/*", False),
        ("anything.py", ".", True),
    ],
)
def test_path_matches(path: str, pattern: str, matches: bool):
    assert path_matches(path, pattern) is matches


def test_discovery_skips_excluded_and_hidden_folders(tmp_path: Path):
    for name in ("a.py", "skip/b.py", ".hidden/c.py", "__pycache__/d.py", "e.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    config = config_from_table({"exclude": ["skip"]}, root=tmp_path)
    assert [path.name for path in discover_files(config)] == ["a.py"]


def test_scanning_no_files_is_an_error(tmp_path: Path):
    config = config_from_table({"paths": ["missing"]}, root=tmp_path)
    with pytest.raises(NoFilesScanned):
        audit_project(config)


def test_registry_is_read_from_the_configured_module():
    from audits.op_registry import load_registry_ops

    ops, note = load_registry_ops(load_config(FIXTURE_PROJECT / "pyproject.toml"))
    assert note is None and "linalg.dot" in ops


def test_unreadable_registry_falls_back_with_a_note(tmp_path: Path):
    (tmp_path / "x.py").write_text('OP = "arith.frobnicate"\n')
    config = config_from_table({"registry": "nowhere.registry:OPS"}, root=tmp_path)
    report = audit_project(config)
    assert report.clean
    assert "could not be read" in report.notes[0]
