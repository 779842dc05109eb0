"""The audit on another compiler: NineToothed 0.26.0, a test dependency, under the configuration
audits/REUSE.md reports on. Its findings are the four the report lists as right, and nothing
else."""

from __future__ import annotations

import importlib.metadata

from audit_support import NINETOOTHED_CONFIG, NINETOOTHED_SITE, REPOSITORY

from audits import cli
from audits.engine import audit_project


def test_ninetoothed_gives_the_reported_findings():
    assert importlib.metadata.version("ninetoothed") == "0.26.0"
    report = audit_project(NINETOOTHED_CONFIG)
    assert len(report.files) == 18
    assert [(f.path, f.line, f.code) for f in report.findings] == [
        ("ninetoothed/aot.py", 551, "LWA004"),  # C header templates shipped with the package
        ("ninetoothed/aot.py", 555, "LWA004"),
        ("ninetoothed/eval.py", 168, "LWA009"),  # Tensor's methods bound from another module
        ("ninetoothed/eval.py", 170, "LWA009"),
    ]


def test_root_audits_another_folder_with_a_configuration(capsys):
    config = REPOSITORY / "audits" / "reuse" / "ninetoothed.toml"
    status = cli.main(["check", "--config", str(config), "--root", str(NINETOOTHED_SITE)])
    assert status == 1
    assert "findings 4, files_scanned 18" in capsys.readouterr().out
    assert cli.main(["check", "--config", str(config), "--root", str(config)]) == 2
