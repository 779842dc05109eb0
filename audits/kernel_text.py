"""Does a piece of text look like kernel source (CUDA/HIP, Triton, TileLang, TVM script, and the
kernel languages of other compilers that reuse the audit: OpenCL C, Metal, WGSL)?

A generic emitter spells one op at a time (`tl.load({ptr}, mask={mask})`, `blockIdx.x`), so one
spelling carries one or two markers. Kernel source carries many, over several statements. A DSL
name (`tl.load`, `T.serial`) is a marker only where it is called or indexed: prose that names
the API ("use T.serial or T.unroll") is not code.
"""

from __future__ import annotations

import re

_MARKERS = re.compile(
    r"__global__|__device__|__shared__|__syncthreads|__restrict__|threadIdx|blockIdx|blockDim"
    r"|gridDim|extern\s+\"C\"|#include|#pragma|wmma::|mma\.sync|asm\s+volatile|cp\.async"
    r"|@triton\.jit|@tilelang\.jit|@T\.prim_func|tvm\.script"
    r"|\b(?:n?tl|T|te)\.[A-Za-z_]\w*(?=\s*[(\[])"
    r"|\bfor\s*\(\s*(?:int|unsigned|size_t)\b|\{%|\$\{"
    r"|__launch_bounds__|hipLaunchKernelGGL|hip(?:ThreadIdx|BlockIdx|BlockDim)_[xyz]"
    r"|__kernel\b|__global\s|__local\s|get_(?:global|local|group)_id|\bCLK_\w+"
    r"|\[\[\s*(?:thread_position_in_grid|threadgroup_position_in_grid|buffer\(\d+\))"
    r"|\bthreadgroup\s|threadgroup_barrier"
    r"|@compute|@workgroup_size|@group\(|@binding\(|var<(?:storage|workgroup|uniform)"
    r"|global_invocation_id|local_invocation_id|workgroupBarrier"
)
_STATEMENT_BREAKS = re.compile(r"\n|\\n|;")

MIN_MARKERS = 3  # with at least two statements
MIN_MARKERS_ONE_STATEMENT = 5


def kernel_markers(text: str) -> frozenset[str]:
    """The distinct kernel-language markers in `text` (whitespace-normalized)."""
    return frozenset(" ".join(match.split()) for match in _MARKERS.findall(text))


def looks_like_kernel(text: str) -> frozenset[str]:
    """The markers when `text` reads as kernel source, else an empty set."""
    markers = kernel_markers(text)
    statements = len(_STATEMENT_BREAKS.findall(text.strip())) + 1
    if len(markers) >= MIN_MARKERS_ONE_STATEMENT or (
        len(markers) >= MIN_MARKERS and statements >= 2
    ):
        return markers
    return frozenset()


def describe(markers: frozenset[str], limit: int = 4) -> str:
    shown = sorted(markers)[:limit]
    more = "" if len(markers) <= limit else f", +{len(markers) - limit} more"
    return ", ".join(shown) + more
