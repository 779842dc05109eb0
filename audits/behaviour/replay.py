"""Clean-room replay: each pass and the emitter, run again in a fresh process, give what the compile
recorded.

The parent sends artifacts (initial IR, trace, final SSA, source, what lowering was given) to
`python -m audits.behaviour.replay`. The child imports the IR core, the pass registry and manager,
each pass's own module (named by the parent) and the target records; never the front end, the suite
or the program. For every trace entry it parses the recorded input IR, runs that one pass with the
recorded options and the same target record and caller options, and compares the printed output and
remarks with the recorded ones; then it emits the final SSA with the target record (`emit`, the
shared emitter itself) and compares the source. Importing the front end, the suite or the runtime
along the way is a difference too. Anything that changed the results outside the registered passes
and the emitter (state the front end left behind, a wrapper around the pass manager, a module that
edits the source after emission) shows up as a difference.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from audits.behaviour.difference import text_difference

_FORBIDDEN_PREFIXES = ("compiler.frontend", "compiler.dsl", "compiler.suite", "compiler.runtime")


def request(artifacts: dict[str, object]) -> dict:
    """What the child needs, for {kernel: Artifact} of one backend and device."""
    from compiler.passes import registry

    modules = {}
    documents = []
    for name, artifact in sorted(artifacts.items()):
        for entry in artifact.trace:
            modules[entry["pass"]] = registry.get(entry["pass"]).__module__
        documents.append(
            {
                "name": name,
                "backend": artifact.backend,
                "device": artifact.device,
                "initial_ssa": artifact.initial_ssa,
                "trace": [
                    {k: entry[k] for k in ("pass", "options", "ir", "remarks")}
                    for entry in artifact.trace
                ],
                "ssa": artifact.ssa,
                "source": artifact.source,
                "index_bits": artifact.index_bits,
                "lowering": artifact.lowering,
            }
        )
    return {"modules": modules, "artifacts": documents}


def replay(document: dict) -> list[dict]:
    """One {kernel, stage number, stage, difference} per stage that does not replay."""
    from compiler.backends.emitter import emit
    from compiler.backends.registry import get_target
    from compiler.ir.parser import parse_kernel
    from compiler.passes.base import PassContext, format_option
    from compiler.passes.manager import PassManager
    from compiler.passes.registry import get

    for module in sorted(set(document["modules"].values())):
        importlib.import_module(module)
    differences = []
    for artifact in document["artifacts"]:
        target = get_target(artifact["backend"], artifact["device"])
        lowering = artifact["lowering"]
        pipeline_target = widened(target, lowering.get("index_bits"))
        text = artifact["initial_ssa"]
        for number, entry in enumerate(artifact["trace"], 1):
            options = {key: format_option(value) for key, value in entry["options"].items()}
            pass_ = get(entry["pass"]).from_options(options)
            context = PassContext(target=pipeline_target, options=dict(lowering.get("options", {})))
            kernel = parse_kernel(text)
            try:
                got = PassManager([pass_], context).run(kernel)[0]
            except Exception as error:  # the recorded input must replay: a failure is a difference
                difference = f"raised {type(error).__name__}: {error}"
            else:
                difference = _difference(
                    (entry["ir"], entry["remarks"]), (got.ir, list(got.remarks))
                )
            if difference:
                differences.append(_record(artifact, number, f"pass {entry['pass']}", difference))
            text = entry["ir"]
        final_target = widened(target, artifact["index_bits"])
        source = emit(parse_kernel(artifact["ssa"]), final_target, ssa=artifact["ssa"])
        difference = _difference(artifact["source"], source)
        if difference:
            stage = len(artifact["trace"]) + 1
            differences.append(_record(artifact, stage, "emitter", difference))
    leaked = sorted(m for m in sys.modules if m.startswith(_FORBIDDEN_PREFIXES))
    if leaked:  # a pass, the emitter or a target record reaches for the program's side
        what = f"replaying imported {', '.join(leaked[:4])}: lowering depends on the front end"
        differences.append({"kernel": "(all)", "number": 1, "stage": "clean room", "what": what})
    return differences


def widened(target, index_bits):
    """The record a compile used: the target's own, or its wide form past its index width."""
    if index_bits is not None and index_bits > target.capability("index_bits", 64):
        return target.widened()
    return target


def _record(artifact: dict, number: int, stage: str, difference: str) -> dict:
    return {"kernel": artifact["name"], "number": number, "stage": stage, "what": difference}


def _difference(recorded, replayed) -> str:
    if recorded == replayed:
        return ""
    if isinstance(recorded, tuple):
        if recorded[0] == replayed[0]:
            return f"remarks {recorded[1]} replayed as {replayed[1]}"
        recorded, replayed = recorded[0], replayed[0]
    return text_difference(recorded, replayed, was="recorded ", became="replayed as")


def main() -> None:
    sys.path.insert(0, str(Path.cwd()))
    print(json.dumps(replay(json.load(sys.stdin))))


if __name__ == "__main__":
    main()
