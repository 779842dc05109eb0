"""NineToothed's public API: `Tensor` and its meta-operations, `Symbol`, `block_size`, dtypes.

Each name is re-exported with `import ... as ...`, one per line, so more can be appended.
"""

from compiler.dsl import aot as aot
from compiler.dsl import auto_tuner as auto_tuner
from compiler.dsl import debugging as debugging
from compiler.dsl import generation as generation
from compiler.dsl import language as language
from compiler.dsl import naming as naming
from compiler.dsl import visualization as visualization
from compiler.dsl.build import build as build
from compiler.dsl.dtype import bfloat16 as bfloat16
from compiler.dsl.dtype import float16 as float16
from compiler.dsl.dtype import float32 as float32
from compiler.dsl.dtype import float64 as float64
from compiler.dsl.dtype import int8 as int8
from compiler.dsl.dtype import int16 as int16
from compiler.dsl.dtype import int32 as int32
from compiler.dsl.dtype import int64 as int64
from compiler.dsl.dtype import uint8 as uint8
from compiler.dsl.dtype import uint16 as uint16
from compiler.dsl.dtype import uint32 as uint32
from compiler.dsl.dtype import uint64 as uint64
from compiler.dsl.evaluate import evaluate as evaluate
from compiler.dsl.make import jit as jit
from compiler.dsl.make import make as make
from compiler.dsl.substitute import substitute as substitute
from compiler.dsl.symbol import Symbol as Symbol
from compiler.dsl.symbol import block_size as block_size
from compiler.dsl.tensor import Tensor as Tensor

eval = evaluate  # NineToothed's names: `ninetoothed.eval(tensor, subs)`, `ninetoothed.subs(...)`
subs = substitute
# The submodules a program may import as `ninetoothed.<name>` (NineToothed's own module names).
SUBMODULES = ("aot", "auto_tuner", "debugging", "generation", "language", "naming", "visualization")
