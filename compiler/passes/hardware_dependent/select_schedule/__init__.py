"""`ssa.select_schedule` (`select_schedule.py`) and its measured autotuner (`autotune.py`:
candidate schedules, timing them through the caller, the tuning cache)."""
