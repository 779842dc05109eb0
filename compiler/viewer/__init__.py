"""Viewers of what the compiler recorded: `ntc trace` writes a pass-trace page."""

from compiler.viewer.trace_page import (
    build_trace_page,
    kernel_view,
    line_diff,
    page_data,
    write_trace_page,
)

__all__ = ["build_trace_page", "kernel_view", "line_diff", "page_data", "write_trace_page"]
