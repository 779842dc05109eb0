// What an emitted CUDA C++ kernel relies on when nvcc compiles it for a GPU: fixed-width integer
// types and the half-precision types. The launcher passes it with `-include`, so one source serves
// both this and the CPU shim (ntc_cuda_host.h).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

// arith.bitcast: the same bits as another type of the same width.
template <typename To, typename From>
__device__ __forceinline__ To ntc_bitcast(From value) {
  To result;
  memcpy(&result, &value, sizeof result);
  return result;
}

// mem.atomic for any 2-, 4- or 8-byte type: compare-and-swap on its bits until no other thread
// changed them in between (CUDA's own atomicAdd has no int64 and atomicMax no float form).
template <typename T, typename Combine>
__device__ __forceinline__ T ntc_atomic_update(T* at, T value, Combine combine) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "2-, 4- or 8-byte atomics");
  using Word = typename std::conditional<
      sizeof(T) == 2, unsigned short,
      typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type>::type;
  Word* word = reinterpret_cast<Word*>(at);
  Word seen = *word, expected;
  do {
    expected = seen;
    T updated = combine(ntc_bitcast<T>(expected), value);
    seen = atomicCAS(word, expected, ntc_bitcast<Word>(updated));
  } while (seen != expected);
  return ntc_bitcast<T>(seen);
}

struct ntc_add {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct ntc_max {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};
struct ntc_min {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a < b ? a : b; }
};

template <typename T>
__device__ __forceinline__ T ntc_atomic_add(T* at, T value) {
  return ntc_atomic_update(at, value, ntc_add());
}
template <typename T>
__device__ __forceinline__ T ntc_atomic_max(T* at, T value) {
  return ntc_atomic_update(at, value, ntc_max());
}
template <typename T>
__device__ __forceinline__ T ntc_atomic_min(T* at, T value) {
  return ntc_atomic_update(at, value, ntc_min());
}

// mem.dot: c = a @ b (c += a @ b where Accumulate) for row-major [M, K], [K, N] and [M, N]
// arrays in shared memory, by every thread of the block together. Each warp takes 16 x 16 tiles of c in turn and runs their k-loop
// on tensor cores (WMMA: f16 or bf16 in, f32 accumulated). The barriers: every thread's part of a
// and b is written before any warp loads it, and c is whole before any thread reads it.
template <int M, int N, int K, bool Accumulate, typename T>
__device__ __forceinline__ void ntc_dot(const T* a, const T* b, float* c) {
  static_assert(M % 16 == 0 && N % 16 == 0 && K % 16 == 0, "whole 16 x 16 x 16 tiles");
  using namespace nvcuda;
  __syncthreads();
  const int warps = blockDim.x / 32;
  for (int tile = threadIdx.x / 32; tile < (M / 16) * (N / 16); tile += warps) {
    const int i = tile / (N / 16) * 16, j = tile % (N / 16) * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> sum;
    if (Accumulate) {
      wmma::load_matrix_sync(sum, c + i * N + j, N, wmma::mem_row_major);
    } else {
      wmma::fill_fragment(sum, 0.0f);
    }
    for (int k = 0; k < K; k += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> left;
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> right;
      wmma::load_matrix_sync(left, a + i * K + k, K);
      wmma::load_matrix_sync(right, b + k * N + j, N);
      wmma::mma_sync(sum, left, right, sum);
    }
    wmma::store_matrix_sync(c + i * N + j, sum, N, wmma::mem_row_major);
  }
  __syncthreads();
}
