# Everything runs inside .venv; `make install` is idempotent and quick when nothing changed.
PY := .venv/bin/python
STAMP := .venv/.installed
TVM_PY := .venv-tvm/bin/python
TVM_STAMP := .venv-tvm/.installed

.PHONY: install demo test lint format agent eval bench

install: $(STAMP) $(TVM_STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The TVM backend's worker runs real apache-tvm 0.27 in .venv-tvm: its apache-tvm-ffi 0.1.15 cannot
# share .venv with TileLang's bundled TVM (apache-tvm-ffi 0.1.12). No torch there: tensors cross as
# numpy arrays.
$(TVM_STAMP):
	test -x $(TVM_PY) || python3 -m venv .venv-tvm
	$(TVM_PY) -m pip install --quiet --upgrade pip
	$(TVM_PY) -m pip install --quiet 'apache-tvm==0.27.0.post1' numpy
	touch $(TVM_STAMP)

demo: install
	TRITON_INTERPRET=1 $(PY) -m compiler demo

test: install
	TRITON_INTERPRET=1 $(PY) -m pytest tests

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: install
	$(PY) -m ruff format .

# `make agent TASK=add-backend [BACKEND=c] [PARAMS="NAME=VALUE ..."] [APPROVE=1]`, or
# `make agent RESUME=<run-id> [ANSWER=yes]`. Without OPENAI_API_KEY and MODEL the task's bundled
# transcript is replayed (see README, "Agent workflows").
agent: install
ifdef RESUME
	TRITON_INTERPRET=1 $(PY) -m agents resume $(RESUME) $(if $(ANSWER),--answer "$(ANSWER)")
else
	TRITON_INTERPRET=1 $(PY) -m agents run --task $(or $(TASK),add-backend) \
		$(if $(BACKEND),--param BACKEND=$(BACKEND)) $(foreach p,$(PARAMS),--param $(p)) \
		$(if $(APPROVE),--approve)
endif

# `make eval [ARGS="--model NAME --skill S --repeat 5 --ray auto ..."]`: every skill eval run by an
# agent with its skill and without it, graded; tables and a plot in evals/results/<sweep>/. Without
# MODEL or --model, the runs talk to the scripted local model, labelled so (README, "Skill evals").
eval: install
	$(PY) -m agents eval $(ARGS)

# The kernel x backend matrix on a CUDA GPU; writes bench/results/gpu_check.md (see README).
.PHONY: gpu-check gpu-bench
gpu-check: install
	$(PY) bench/gpu_check.py

# The suite kernels timed on a CUDA GPU against the measured roofline (ours for Triton, CUDA C++,
# TileLang; torch; NineToothed); writes bench/results/gpu_bench.md and gpu_roofline.png within an
# 8-minute budget. `python bench/gpu.py --dry-run` runs the same script on the CPU at small sizes.
# Then the host time per call with the GPU forms' columns (bench/results/launch_gpu.md).
gpu-bench: install
	$(PY) bench/gpu.py
	$(PY) bench/launch.py --calls 100 --repeat 3 --out bench/results/launch_gpu.md

# Without a GPU: every suite kernel's CUDA C++ and TileLang GPU forms through nvcc for sm_90 with
# `ptxas -v` (registers, shared memory, spills, tensor-core instructions), and its Triton form,
# ours and NineToothed 0.26's, compiled by Triton for sm_90 as a launch would; all against
# NineToothed's Triton, metric by metric in the SASS; writes bench/results/gpu_static.md.
.PHONY: gpu-static
gpu-static: install
	$(PY) bench/gpu_static.py

# Compile time of our pipeline (every backend) against NineToothed 0.26's make, on the CPU, for the
# suite's programs and ntops kernels (from ../shared/corpora); writes bench/results/compile_time.md.
# `make bench ARGS="--repeat 9 --kernel matmul --kernel ntops.softmax"` passes options.
bench: install
	TRITON_INTERPRET=1 $(PY) bench/compile_time.py $(ARGS)

# Host time per kernel call, every backend against torch eager and NineToothed 0.26's own launch
# path (Triton's call stubbed); writes bench/results/launch.md. ARGS as for bench.
.PHONY: bench-launch
bench-launch: install
	TRITON_INTERPRET=1 $(PY) bench/launch.py $(ARGS)

# A NineToothed library's own tests with ninetoothed bound to this compiler, per backend, on the
# CPU: `make compat [CORPUS=DIR_OR_TARBALL] [BACKEND=triton|...|reference|all] [ARGS="--sample 3
# --jobs 2 --timeout 120 --resume"]`; writes bench/results/compat.md, and the records and
# outcomes (gzipped, committed) in data/compat/.
.PHONY: compat
compat: install
	TRITON_INTERPRET=1 $(PY) -m compiler.compat $(if $(CORPUS),--corpus $(CORPUS)) \
		$(if $(BACKEND),--backend $(BACKEND)) $(ARGS)
