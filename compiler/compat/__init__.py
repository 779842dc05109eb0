"""Compatibility runs: a NineToothed library's own pytest suite, with `ninetoothed` bound to this
compiler (one backend at a time) or to NineToothed itself (the reference), on the CPU.

- `corpus.py`   finds and unpacks a library (a folder or a tarball) into the build cache
- `on_cpu.py`   an import hook that moves the library's CUDA device to the CPU as it is imported
- `plugin.py`   the pytest plugin each run loads: binding, CPU hook, time limit, sampling, records
- `runner.py`   `python -m compiler.compat` / `make compat`: the runs, progress, the report
- `report.py`   `bench/results/compat.md` from the records
- `data.py`     where the records and the outcomes table are kept (`data/compat/`), gzipped
- `library.py`  a library's modules imported outside its tests, under either binding
- `library_kernels.py`  the ntops kernels `make bench` compiles, by ntops' own `premake`
"""
