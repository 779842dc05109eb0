"""The code audit's rules, in code order. Each module holds one rule and its own examples."""

from audits.rules.backend_name_flag import BackendNameFlag
from audits.rules.base import FileContext, Report, Rule, RuleInfo
from audits.rules.foreign_rebinding import ForeignRebinding
from audits.rules.identity_flow import IdentityFlow
from audits.rules.kernel_source_text import KernelSourceText
from audits.rules.kernel_template_loading import KernelTemplateLoading
from audits.rules.opaque_code_blob import OpaqueCodeBlob
from audits.rules.operator_name_dispatch import OperatorNameDispatch
from audits.rules.operator_named_definition import OperatorNamedDefinition
from audits.rules.unregistered_op_name import UnregisteredOpName

RULES: tuple[type[Rule], ...] = (
    OperatorNamedDefinition,
    OperatorNameDispatch,
    KernelSourceText,
    KernelTemplateLoading,
    UnregisteredOpName,
    BackendNameFlag,
    OpaqueCodeBlob,
    IdentityFlow,
    ForeignRebinding,
)

INTEGRITY = RuleInfo(
    code="LWA000",
    name="audit-integrity",
    summary="a file the audit cannot read, or a suppression or baseline entry it cannot honour",
    fix="fix the file or the entry as the message says; every accepted finding needs a reason",
)

RULE_CODES = frozenset(rule.info.code for rule in RULES)

__all__ = ["INTEGRITY", "RULES", "RULE_CODES", "FileContext", "Report", "Rule", "RuleInfo"]
