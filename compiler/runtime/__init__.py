"""Launchers: run what a backend emitted on torch tensors (CPU interpreter or GPU)."""

from compiler.runtime.dispatch import LaunchError, launch
from compiler.runtime.grid import GridError, evaluate_grid

__all__ = ["GridError", "LaunchError", "evaluate_grid", "launch"]
