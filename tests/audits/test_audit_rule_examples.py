"""Every rule flags its own must-flag examples and leaves its must-pass examples alone."""

from __future__ import annotations

import pytest
from audit_support import audit_snippet, codes

from audits.rules import RULES


def _examples(kind: str) -> list:
    return list(_each_example(kind))


def _each_example(kind: str):
    for rule in RULES:
        for number, source in enumerate(getattr(rule, kind), 1):
            yield pytest.param(rule.info.code, source, id=f"{rule.info.code}-{number}")


@pytest.mark.parametrize(("code", "source"), _examples("must_flag"))
def test_rule_flags_its_examples(code: str, source: str):
    assert code in codes(audit_snippet(source)), source


@pytest.mark.parametrize(("code", "source"), _examples("must_pass"))
def test_rule_passes_its_examples(code: str, source: str):
    assert code not in codes(audit_snippet(source)), source


def test_every_rule_has_examples_and_a_unique_code():
    assert len({rule.info.code for rule in RULES}) == len(RULES)
    for rule in RULES:
        assert rule.must_flag and rule.must_pass, rule.info.code
        assert rule.info.fix and rule.info.summary, rule.info.code


def test_every_message_says_what_to_do_instead():
    findings = audit_snippet("def lower_matmul(kernel):\n    return kernel\n")
    (finding,) = findings
    assert "generic op" in finding.message and "op registry" in finding.message
