"""What `ptxas -v` says of one entry function: registers, shared memory, stack and spills."""

from __future__ import annotations

import re


def ptxas_usage(log: str, kernel: str) -> tuple[int, int, int, int]:
    """(registers, shared memory bytes, stack frame bytes, spilled bytes) that `ptxas -v` printed
    for the entry whose mangled or plain name holds `kernel`."""
    lines = log.splitlines()
    for index, line in enumerate(lines):
        if "Compiling entry function" in line and kernel in line:
            block = "\n".join(lines[index : index + 4])
            registers = re.search(r"Used (\d+) registers", block)
            shared = re.search(r"(\d+) bytes smem", block)
            stack = re.search(r"(\d+) bytes stack frame", block)
            stores = re.search(r"(\d+) bytes spill stores", block)
            loads = re.search(r"(\d+) bytes spill loads", block)
            spilled = sum(int(m.group(1)) for m in (stores, loads) if m)
            return (
                int(registers.group(1)) if registers else 0,
                int(shared.group(1)) if shared else 0,
                int(stack.group(1)) if stack else 0,
                spilled,
            )
    raise RuntimeError(f"ptxas printed nothing for an entry named like {kernel!r}:\n{log}")
