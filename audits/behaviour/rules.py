"""The behavioural audits' codes; findings point at behaviour/<backend>/<kernel>/<configuration>
(or at the file and line of the code that did what it must not)."""

from audits.rules.base import RuleInfo

IDENTITY_INVARIANCE = RuleInfo(
    code="LWB001",
    name="identity-invariance",
    summary="renaming everything a program's author chose (kernel, functions, parameters, "
    "symbols, module, file, docstrings) changes nothing lowering produces, once the names are "
    "mapped back",
    fix="decide from the IR's ops, types and attributes and from the target record, never from "
    "names, docstrings or where the program lives",
)
PURITY = RuleInfo(
    code="LWB002",
    name="purity",
    summary="lowering reads nothing but its inputs: no files besides the program's own (read by "
    "the front end), no directory listings, no compiled or executed text, no subprocesses, no "
    "environment variables outside the declared list",
    fix="make the decision a function of the IR and the target record; what varies by machine "
    "belongs in a target capability or a pass option",
)
IMPORT_REBINDING = RuleInfo(
    code="LWB003",
    name="import-rebinding",
    summary="importing a compiler module leaves every other module's functions, classes, "
    "methods and registered entries as they were",
    fix="change behaviour in the module that owns it (a registered pass, a target record), not "
    "by patching it from elsewhere",
)
CLEAN_ROOM_REPLAY = RuleInfo(
    code="LWB004",
    name="clean-room-replay",
    summary="each pass, given its recorded input in a fresh process, gives its recorded output; "
    "the emitter, given the final SSA and the target record, gives the same source",
    fix="change what lowering produces only inside a registered pass or the shared emitter, as "
    "a function of their inputs",
)
STRUCTURE_STABILITY = RuleInfo(
    code="LWB005",
    name="structure-stability",
    summary="rewrites that change neither what a kernel computes nor its shapes (commutative "
    "operands swapped, independent statements reordered, an unused parameter, a zero term) "
    "leave the schedule and the final SSA's computing ops as they were",
    fix="key schedule decisions on generic properties (shapes, op kinds, data volume), never on "
    "how one program happens to be written",
)
PROVENANCE = RuleInfo(
    code="LWB007",
    name="emitted-provenance",
    summary="every word of the emitted source comes from the target record (its spellings, "
    "syntax and the functions they call) or from the kernel's IR",
    fix="spell ops from the target record and name values after the IR; a helper the output "
    "needs is a spelling (or a generic op) of the target, never text kept in the emitter",
)
EMISSION_LOCALITY = RuleInfo(
    code="LWB008",
    name="emission-locality",
    summary="one op appended to a kernel's final SSA adds that op's spelling to the emitted "
    "source and changes nothing else",
    fix="spell the source op by op from the IR and the target record; never swap in text chosen "
    "by the kernel's op counts, a pattern of its ops, a hash of its SSA or earlier output",
)
CANNOT_COMPILE = RuleInfo(
    code="LWB006",
    name="behaviour-compiles",
    summary="every audited program compiles, renamed and rewritten forms included",
    fix="fix the compiler (or the case): a program the audit cannot compile is not audited",
)
BEHAVIOUR_RULES = (
    IDENTITY_INVARIANCE,
    PURITY,
    IMPORT_REBINDING,
    CLEAN_ROOM_REPLAY,
    STRUCTURE_STABILITY,
    CANNOT_COMPILE,
    PROVENANCE,
    EMISSION_LOCALITY,
)
