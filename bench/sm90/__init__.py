"""What the sm_90 builds of the suite kernels show, read without a GPU (`make gpu-static`).

- `nvcc.py`: our CUDA C++ and TileLang GPU forms through nvcc and `ptxas -v`;
- `triton_build.py`: a Triton launch, ours or NineToothed's, compiled by Triton for sm_90 instead
  of run;
- `sass.py`: a cubin's SASS read for what runs: instructions, global access widths, tensor cores;
- `parity.py`: our forms against NineToothed's Triton, metric by metric, with `reasons.py`'s
  word for each metric on which ours is worse.
"""
