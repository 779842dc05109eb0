"""The trace audit's codes; its findings point at trace/<backend>/<kernel>:<pass number>."""

from audits.rules.base import RuleInfo

SAME_PIPELINE = RuleInfo(
    code="LWT001",
    name="same-pipeline",
    summary="every kernel on every backend runs the same passes in the same order",
    fix=(
        "run the one default pipeline for every kernel and backend; only pass options and op "
        "counts may differ, so put what varies into options or target capabilities"
    ),
)
VERIFIED_AFTER_EACH_PASS = RuleInfo(
    code="LWT002",
    name="verified-after-each-pass",
    summary="the IR verified after every pass",
    fix="make the pass produce verifiable IR (registered ops, well-typed operands) and let the "
    "pass manager verify after it",
)
LEVEL_NEVER_RISES = RuleInfo(
    code="LWT003",
    name="level-never-rises",
    summary="after decomposition, no high-level op (linalg.*) the target lacks, and none that "
    "the decomposition's output did not have",
    fix="decompose high-level ops once, in the decomposition pass; later passes emit only "
    "lower-level generic ops",
)
TARGET_LEGAL_OPS = RuleInfo(
    code="LWT004",
    name="target-legal-ops",
    summary="only target-legal ops after intrinsic lowering",
    fix="decompose the op in a generic pass when the target lacks it (ask target.has(op)), or "
    "add the op to the target's legal ops and spelling table",
)
EMITTED_FROM_SSA = RuleInfo(
    code="LWT005",
    name="emitted-from-ssa",
    summary="the emitted code came from the shared SSA (it carries the SSA's sha256)",
    fix="emit code only by walking the final SSA, and write its header line "
    "`ssa-sha256: <sha256 of the SSA text>`",
)
TRACE_INTEGRITY = RuleInfo(
    code="LWT006",
    name="trace-integrity",
    summary="a complete, self-consistent trace for every kernel on every backend",
    fix="record every pass with all trace fields and consistent op counts, and compile every "
    "suite kernel for every backend present",
)

TRACE_RULES = (
    SAME_PIPELINE,
    VERIFIED_AFTER_EACH_PASS,
    LEVEL_NEVER_RISES,
    TARGET_LEGAL_OPS,
    EMITTED_FROM_SSA,
    TRACE_INTEGRITY,
)
