"""What several passes share (a helper only one pass uses lives in that pass's folder):

- `rewrite.py`, `constants.py`   in-place IR edits; reading, making and evaluating constants
- `ranges.py`                    integer value ranges, to drop bounds checks that always pass
- `decompositions.py`            generic rewrites of ops a target lacks, with
  `math_decompositions.py` and `axis_decompositions.py` (math functions; sort, gather, scan)
- `widen.py`                     computing in a wider dtype the target accepts
- `array_dot.py`                 which dots a target's block-wide array dot takes
- `thread_count.py`              threads per program (the backends' optimize_schedule passes)
- `lanes.py`                     a thread's consecutive lanes, for vector accesses
"""
