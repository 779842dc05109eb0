"""The `ntc` command (`commands.py`: its subcommands) and what it needs to take a program file
(`program.py`: load or run it with `ninetoothed` bound to this compiler, read `-D` options)."""

from compiler.cli.commands import main

__all__ = ["main"]
