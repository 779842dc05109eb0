"""Pass rates and their uncertainty for small samples: Wilson's score interval for one rate and
Newcombe's hybrid score interval (his method 10) for the difference of two independent rates.
Both stay inside [0, 1] and behave at 0 of n and n of n, where the normal approximation fails."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def wilson(passed: int, runs: int, z: float = Z95) -> tuple[float, float]:
    if runs == 0:
        return 0.0, 1.0
    rate = passed / runs
    centre = rate + z * z / (2 * runs)
    spread = z * math.sqrt(rate * (1 - rate) / runs + z * z / (4 * runs * runs))
    scale = 1 + z * z / runs
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def difference(
    passed_a: int, runs_a: int, passed_b: int, runs_b: int, z: float = Z95
) -> tuple[float, float, float]:
    """(rate a - rate b, lower, upper) at confidence `z`; both samples must be non-empty."""
    rate_a, rate_b = passed_a / runs_a, passed_b / runs_b
    low_a, high_a = wilson(passed_a, runs_a, z)
    low_b, high_b = wilson(passed_b, runs_b, z)
    delta = rate_a - rate_b
    lower = delta - math.sqrt((rate_a - low_a) ** 2 + (high_b - rate_b) ** 2)
    upper = delta + math.sqrt((high_a - rate_a) ** 2 + (rate_b - low_b) ** 2)
    return delta, lower, upper
