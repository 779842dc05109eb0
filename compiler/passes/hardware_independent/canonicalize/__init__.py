"""`ssa.canonicalize` (`canonicalize.py`) and the rewrites only it runs: `fold.py` (constants and
identities), `cse.py`, `dce.py`, `licm.py` and `conjunctions.py` (mask chains flattened)."""
