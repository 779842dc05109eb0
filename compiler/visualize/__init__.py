"""Pictures of arrangements: which elements of each tensor one program loads and stores, at one
iteration of its outermost loop, read off the compiled kernel run in the IR's interpreter."""

from compiler.visualize.accesses import (
    ProgramAccesses,
    TensorAccesses,
    VisualizeError,
    program_accesses,
)
from compiler.visualize.command import Visualized, file_accesses, visualize_file
from compiler.visualize.render import GridLayout, Picture, render

__all__ = [
    "GridLayout",
    "Picture",
    "ProgramAccesses",
    "TensorAccesses",
    "Visualized",
    "VisualizeError",
    "file_accesses",
    "program_accesses",
    "render",
    "visualize_file",
]
