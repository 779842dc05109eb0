"""Behavioural audits: prove by running the compiler that lowering does not depend on which kernel
it is, however the code is spelled (`python -m audits behaviour`; `audit.py` lists the checks).

The code audit judges how code is written; these judge what it does: a renamed program lowers to
the same thing, lowering reads nothing but its inputs, no import patches another module, every pass
replays in a clean process, rewrites that change neither shapes nor types keep the schedule, and
every word of the output comes from the target record or the IR. They need the compiler; the rest
of `audits` does not.
"""

from audits.behaviour.rules import BEHAVIOUR_RULES

__all__ = ["BEHAVIOUR_RULES"]
