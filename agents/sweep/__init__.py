"""Skill-eval sweeps: does a skill help? `python -m agents eval` (`agents/sweep/cli.py`).

plan.py     which runs: skill evals x models x {with, without} the skill x repeats, as units
unit.py     one unit: the task through the workflow in a fresh sandbox, graded, recorded
execute.py  units in worker processes, or as Ray tasks (ray_tasks.py); a failure is tried again
store.py    the results folder: manifest, records (resumable), each run's artifacts
summary.py  the tables per skill (stats.py: the intervals); plot.py the plot
scripted.py the scripted model that stands in when no model is given; server.py its endpoint
"""
