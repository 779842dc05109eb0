"""A cubin's SASS, read for what the GPU runs: its instructions, the widths of its global loads and
stores and its tensor-core instructions. The disassembler is the `cuobjdump` bundled in Triton's
wheel (the CUDA toolkit here ships only nvcc and ptxas); it reads every sm_90 cubin alike."""

from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

# `/*0a40*/  @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;`: the opcode with its modifiers, after any
# predicate.
INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T\d]+\s+)?([A-Z][^\s;]*)", re.M)
FUNCTION = re.compile(r"^\s*Function : (\S+)\s*$", re.M)
GLOBAL_LOADS = ("LDG", "LDGSTS")  # into registers; into shared memory (cp.async)
GLOBAL_STORES = ("STG",)
TENSOR_CORE = ("HMMA", "HGMMA", "IMMA", "IGMMA", "QGMMA", "BMMA")  # HGMMA: wgmma on Hopper
# Width modifiers of a global access; one with none moves 32 bits. (`LTC128B` is a cache hint.)
WIDTHS = {"128": 128, "64": 64, "U16": 16, "S16": 16, "U8": 8, "S8": 8}


@dataclass(frozen=True)
class Sass:
    instructions: int  # every instruction but the NOPs that pad the function's end
    loads: dict[int, int]  # global loads: bits each -> count
    stores: dict[int, int]  # global stores: bits each -> count
    tensor_core: dict[str, int]  # tensor-core opcode (with its shape and types) -> count

    @staticmethod
    def mean_bits(accesses: dict[int, int]) -> float:
        count = sum(accesses.values())
        return sum(bits * n for bits, n in accesses.items()) / count if count else 0.0


def disassemble(cubin: bytes) -> str:
    from triton import knobs

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "kernel.cubin"
        path.write_bytes(cubin)
        done = subprocess.run(
            [knobs.nvidia.cuobjdump.path, "-sass", str(path)], capture_output=True, text=True
        )
    if done.returncode != 0:
        raise RuntimeError(f"cuobjdump could not read the cubin:\n{done.stderr[-2000:]}")
    return done.stdout


def function_text(sass: str, kernel: str) -> str:
    """The SASS of the function whose plain or mangled name holds `kernel`."""
    parts = FUNCTION.split(sass)  # [preamble, name, body, name, body, ...]
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        if kernel in name:
            return body
    raise RuntimeError(f"no function named like {kernel!r} in the SASS: {parts[1::2]}")


def read(sass: str) -> Sass:
    """What one function's SASS holds."""
    opcodes = INSTRUCTION.findall(sass)
    loads: dict[int, int] = {}
    stores: dict[int, int] = {}
    cores: dict[str, int] = {}
    for opcode in opcodes:
        mnemonic, *modifiers = opcode.split(".")
        if mnemonic in GLOBAL_LOADS or mnemonic in GLOBAL_STORES:
            bits = next((WIDTHS[m] for m in modifiers if m in WIDTHS), 32)
            accesses = loads if mnemonic in GLOBAL_LOADS else stores
            accesses[bits] = accesses.get(bits, 0) + 1
        elif mnemonic in TENSOR_CORE:
            cores[opcode] = cores.get(opcode, 0) + 1
    instructions = sum(opcode != "NOP" for opcode in opcodes)
    return Sass(instructions, loads, stores, cores)


def sass_of(cubin: bytes, kernel: str) -> Sass:
    return read(function_text(disassemble(cubin), kernel))
