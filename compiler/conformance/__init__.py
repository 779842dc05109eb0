"""Op conformance: every elementwise op of the closed registry, on every backend, against the IR
interpreter.

`forms.py` builds small kernels from an op's registry entry alone (its arity, its type rule, the
domains of its attributes); `inputs.py` makes their arguments (edge values first: zeros, signed
zeros, negatives, extremes, infinities and NaN where the type has them, then random ones, over a
ragged length); `check.py` runs each kernel on a backend and on the interpreter and names the op,
the form, the backend and the first element that differs. `python -m compiler.conformance`.
"""

from compiler.conformance.check import Mismatch, conform
from compiler.conformance.forms import Form, forms, testable_ops

__all__ = ["Form", "Mismatch", "conform", "forms", "testable_ops"]
