// What an emitted CUDA C++ kernel relies on when nvcc compiles it for a GPU: fixed-width integer
// types and the half-precision types. The launcher passes it with `-include`, so one source serves
// both this and the CPU shim (ntc_cuda_host.h).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
