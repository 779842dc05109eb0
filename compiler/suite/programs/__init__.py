"""The kernel suite as plain NineToothed programs, one kernel per file.

Each file defines ``arrangement``, ``application`` and ``tensors`` at module level and imports only
``ninetoothed`` (and, for kernels that reuse the matmul, ``compiler.suite.programs.matmul``). Load
them with ``compiler.suite.loader.load_program`` to bind them to real NineToothed or to ours.
"""
