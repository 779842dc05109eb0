"""Agent workflows: a LangGraph graph that drives a model through a task with the skills, in a
sandboxed clone, gated by ruff, the lowering audits, the task's tests and the pass-trace audit.

`python -m agents run --task add-backend` (see `agents/cli.py`); tasks are YAML in
`agents/tasks/`; every run writes a transcript (`transcripts/<run-id>/`) that can be replayed.
"""
