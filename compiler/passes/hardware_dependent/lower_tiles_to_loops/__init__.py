"""`ssa.lower_tiles_to_loops` (`lower_tiles_to_loops.py`, whose docstring is the design) and the
files only it uses: `lowering.py` (the walk over the kernel) with its parts `box_copies.py`,
`dots.py`, `reductions.py` and `control_flow.py`; the analyses `tile_elements.py` (one element
of a tile as scalar ops), `boxes.py` (which accesses are boxes), `read_again.py` (which computed
tiles to hold) and `rescaled_sums.py` (which carried sums a dot adds to in place)."""
