"""Every code either audit reports, for listings and SARIF's rule table."""

from __future__ import annotations

from audits.behaviour.rules import BEHAVIOUR_RULES
from audits.rules import INTEGRITY, RULES, RuleInfo
from audits.trace.rules import TRACE_RULES


def all_rules() -> tuple[RuleInfo, ...]:
    return (INTEGRITY, *(rule.info for rule in RULES), *TRACE_RULES, *BEHAVIOUR_RULES)
