"""The errors a run reports to its user. Each message says where the problem is and what to do."""

from __future__ import annotations


class AgentError(Exception):
    """A problem with the run's configuration, task or environment (exit status 2)."""


class ModelError(AgentError):
    """The model endpoint refused a request for good (bad key, unknown model, bad request)."""


class TransientModelError(ModelError):
    """A failure worth retrying: connection refused or reset, timeout, 429, 5xx."""


class ModelUnavailable(ModelError):
    """Retries ran out. The run is checkpointed: it can be resumed once the endpoint answers."""


class ReplayMismatch(ModelError):
    """The workflow asked the replayed transcript something the transcript does not hold."""


class BudgetExhausted(Exception):
    """A limit (steps, tokens, dollars, wall time) is reached; the run stops with a report."""
