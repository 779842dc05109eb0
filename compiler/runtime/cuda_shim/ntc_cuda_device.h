// What an emitted CUDA C++ kernel relies on when nvcc compiles it for a GPU: fixed-width integer
// types and the half-precision types. The launcher passes it with `-include`, so one source serves
// both this and the CPU shim (ntc_cuda_host.h).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

// arith.bitcast: the same bits as another type of the same width.
template <typename To, typename From>
__device__ __forceinline__ To ntc_bitcast(From value) {
  To result;
  memcpy(&result, &value, sizeof result);
  return result;
}
