"""Agent Skills for compiler work (one folder each), their validator (`python -m skills.validate`)
and their evals (`python -m skills.evals`); see README.md."""
