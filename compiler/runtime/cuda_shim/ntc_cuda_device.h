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

// The launch's threads per block, which the kernel was compiled for, and a thread's share of n
// elements spread over them, `lanes` consecutive ones a round (a private array's length):
// constants, so loops over a thread's share unroll and its private arrays stay in registers.
#define NTC_THREADS(threads) (threads)
#define NTC_ROUNDS(n, threads, lanes) \
  ((((n) + (threads) * (lanes) - 1) / ((threads) * (lanes))) * (lanes))

// mem.load_lanes / mem.store_lanes: a thread's `Lanes` consecutive elements of a buffer in words
// of up to 16 bytes (ld.global.v4 / st.global.v4), which the kernel checked are aligned.
template <int Bytes>
struct ntc_word;
template <>
struct ntc_word<16> {
  using type = uint4;
};
template <>
struct ntc_word<8> {
  using type = uint2;
};
template <>
struct ntc_word<4> {
  using type = unsigned;
};
template <>
struct ntc_word<2> {
  using type = unsigned short;
};

// The thread's own array goes through memcpy, which keeps it in registers whatever its alignment.
template <int Lanes, typename T>
struct ntc_lanes {
  static constexpr int bytes = Lanes * sizeof(T), width = bytes < 16 ? bytes : 16;
  using Word = typename ntc_word<width>::type;
};

template <int Lanes, typename T>
__device__ __forceinline__ void ntc_load_lanes(const T* buffer, T* lanes) {
  using Vector = ntc_lanes<Lanes, T>;
#pragma unroll
  for (int i = 0; i < Vector::bytes / Vector::width; ++i) {
    typename Vector::Word word = reinterpret_cast<const typename Vector::Word*>(buffer)[i];
    memcpy(reinterpret_cast<char*>(lanes) + i * Vector::width, &word, Vector::width);
  }
}

template <int Lanes, typename T>
__device__ __forceinline__ void ntc_store_lanes(const T* lanes, T* buffer) {
  using Vector = ntc_lanes<Lanes, T>;
#pragma unroll
  for (int i = 0; i < Vector::bytes / Vector::width; ++i) {
    typename Vector::Word word;
    memcpy(&word, reinterpret_cast<const char*>(lanes) + i * Vector::width, Vector::width);
    reinterpret_cast<typename Vector::Word*>(buffer)[i] = word;
  }
}

// arith.bitcast: the same bits as another type of the same width.
template <typename To, typename From>
__device__ __forceinline__ To ntc_bitcast(From value) {
  To result;
  memcpy(&result, &value, sizeof result);
  return result;
}

// The unsigned word atomicCAS takes for a 2-, 4- or 8-byte type.
template <typename T>
using ntc_atomic_word = typename std::conditional<
    sizeof(T) == 2, unsigned short,
    typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type>::type;

// mem.atomic for any 2-, 4- or 8-byte type: compare-and-swap on its bits until no other thread
// changed them in between (CUDA's own atomicAdd has no int64 and atomicMax no float form).
template <typename T, typename Combine>
__device__ __forceinline__ T ntc_atomic_update(T* at, T value, Combine combine) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "2-, 4- or 8-byte atomics");
  using Word = ntc_atomic_word<T>;
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
// arith.max and arith.min: IEEE maxNum and minNum, as Triton's maximum and minimum (a NaN
// operand gives the other): fmaxf, fmax and __hmax are that, one instruction each.
struct ntc_max {
  template <typename T>
  __device__ T operator()(T a, T b) const { return (a > b || b != b) ? a : b; }
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
  __device__ __half operator()(__half a, __half b) const { return __hmax(a, b); }
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const {
    return __hmax(a, b);
  }
};
struct ntc_min {
  template <typename T>
  __device__ T operator()(T a, T b) const { return (a < b || b != b) ? a : b; }
  __device__ float operator()(float a, float b) const { return fminf(a, b); }
  __device__ double operator()(double a, double b) const { return fmin(a, b); }
  __device__ __half operator()(__half a, __half b) const { return __hmin(a, b); }
  __device__ __nv_bfloat16 operator()(__nv_bfloat16 a, __nv_bfloat16 b) const {
    return __hmin(a, b);
  }
};

// The bitwise kinds (integers) and exchange combine through the same compare-and-swap loop.
struct ntc_and {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a & b; }
};
struct ntc_or {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a | b; }
};
struct ntc_xor {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a ^ b; }
};
struct ntc_xchg {
  template <typename T>
  __device__ T operator()(T, T b) const { return b; }
};
#define NTC_ATOMIC(kind, combine)                                     \
  template <typename T>                                               \
  __device__ __forceinline__ T ntc_atomic_##kind(T* at, T value) {    \
    return ntc_atomic_update(at, value, combine());                   \
  }
NTC_ATOMIC(add, ntc_add)
NTC_ATOMIC(max, ntc_max)
NTC_ATOMIC(min, ntc_min)
NTC_ATOMIC(and, ntc_and)
NTC_ATOMIC(or, ntc_or)
NTC_ATOMIC(xor, ntc_xor)
NTC_ATOMIC(xchg, ntc_xchg)
#undef NTC_ATOMIC

// mem.atomic kind cas (16-, 32- and 64-bit integers): the hardware's compare-and-swap itself.
template <typename T>
__device__ __forceinline__ T ntc_atomic_cas(T* at, T value, T compare) {
  using Word = ntc_atomic_word<T>;
  Word seen = atomicCAS(reinterpret_cast<Word*>(at), ntc_bitcast<Word>(compare),
                        ntc_bitcast<Word>(value));
  return ntc_bitcast<T>(seen);
}

// mem.reduce: to[o * Inner + i] = the combination of from[(o * Length + l) * Inner + i] over l, for
// the [Outer, Length, Inner] array `from` in shared memory, by every thread of the block together.
// A group of G lanes of one warp reduces each result (G: the largest power of two that is at most
// 32 and Length and leaves a group for every result): each lane combines a strided share of the
// axis, then the group combines the lanes' partials with shuffles. Every thread runs the same
// rounds, so every shuffle has its whole warp; a group past the last result reduces result 0 and
// writes nothing.
template <int Outer, int Length, int Inner, typename T, typename Combine>
__device__ __forceinline__ void ntc_reduce(const T* from, T* to, Combine combine) {
  constexpr int results = Outer * Inner;
  __syncthreads();
  int group = 1;
  while (group < 32 && 2 * group <= Length && 2 * group * results <= (int)blockDim.x) group *= 2;
  const int groups = blockDim.x / group, lane = threadIdx.x % group;
  for (int first = 0; first < results; first += groups) {
    const int result = first + threadIdx.x / group;
    const int at = result < results ? result : 0;
    const T* row = from + at / Inner * Length * Inner + at % Inner;
    T part = row[lane * Inner];
    for (int l = lane + group; l < Length; l += group) part = combine(part, row[l * Inner]);
    for (int offset = group / 2; offset > 0; offset /= 2) {
      part = combine(part, __shfl_xor_sync(0xffffffffu, part, offset, group));
    }
    if (lane == 0 && result < results) to[result] = part;
  }
  __syncthreads();
}

// WMMA's form of a dot of Operand elements: the fragment element type and the k of one step.
// f32 operands are a dot permitting TF32 products (the only f32 dots the capability takes):
// rounded to TF32 as loaded, 16 x 16 x 8 steps.
template <typename Operand>
struct ntc_wmma {
  using element = Operand;
  static constexpr int k = 16;
};
template <>
struct ntc_wmma<float> {
  using element = nvcuda::wmma::precision::tf32;
  static constexpr int k = 8;
};

// An array of the accumulator scope: the [M, N] f32 sum of block-wide dots of Operand elements,
// held in the warps' tensor-core accumulator fragments (registers) for as long as it lives. Warp w
// holds the 16 x 16 tiles w, w + Warps, w + 2 Warps, ... of the row-major [M / 16, N / 16] tiles;
// every loop over a warp's tiles has a constant trip count, so the fragments stay in registers.
// A thread's elements of the sum are its slots: slot s is element s % per_fragment of its
// fragment s / per_fragment (mem.read and mem.write of the array index slots; constant after the
// slot loop unrolls, so they stay registers).
template <int M, int N, int Warps, typename Operand>
struct ntc_accumulator {
  static_assert(M % 16 == 0 && N % 16 == 0, "whole 16 x 16 tiles");
  static constexpr int tiles = (M / 16) * (N / 16);
  static constexpr int per_warp = (tiles + Warps - 1) / Warps;
  static constexpr int k = ntc_wmma<Operand>::k;
  using fragment = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, k, float>;
  static constexpr int per_fragment = fragment::num_elements;
  fragment part[per_warp];
  // Which element of a 16 x 16 tile each slot of a fragment holds (see ntc_positions).
  fragment where;
  __device__ __forceinline__ ntc_accumulator();
  __device__ __forceinline__ float& operator[](int slot) {
    return part[slot / per_fragment].x[slot % per_fragment];
  }
};

// The first row and column of warp tile `t` of this thread's warp, or -1 where it has none.
template <int M, int N, int Warps>
__device__ __forceinline__ int2 ntc_warp_tile(int t) {
  constexpr int tiles = (M / 16) * (N / 16);
  const int tile = threadIdx.x / 32 + t * Warps;
  if (tile >= tiles) return make_int2(-1, -1);
  return make_int2(tile / (N / 16) * 16, tile % (N / 16) * 16);
}

// The row-major positions of a 16 x 16 tile. WMMA leaves which element of a fragment a thread
// holds unspecified, but loads and stores by one mapping: an accumulator fragment loaded from
// this table holds, in each slot, the position of the element the slot holds.
struct ntc_tile_positions {
  float at[256];
  constexpr ntc_tile_positions() : at() {
    for (int i = 0; i < 256; ++i) at[i] = float(i);
  }
};
__device__ constexpr ntc_tile_positions ntc_positions{};

template <int M, int N, int Warps, typename Operand>
__device__ __forceinline__ ntc_accumulator<M, N, Warps, Operand>::ntc_accumulator() {
  nvcuda::wmma::load_matrix_sync(where, ntc_positions.at, 16, nvcuda::wmma::mem_row_major);
}

// mem.owned_slots: how many slots of the accumulator this thread has.
template <int M, int N, int Warps, typename Operand>
__device__ __forceinline__ constexpr int ntc_owned_slots(const ntc_accumulator<M, N, Warps, Operand>&) {
  using sum = ntc_accumulator<M, N, Warps, Operand>;
  return sum::per_warp * sum::per_fragment;
}

// mem.owned_position: the row-major position in [M, N] of the element in this thread's slot, or
// M * N where its warp has no tile for the slot.
template <int M, int N, int Warps, typename Operand>
__device__ __forceinline__ int ntc_owned_position(const ntc_accumulator<M, N, Warps, Operand>& sum, int slot) {
  constexpr int per_fragment = ntc_accumulator<M, N, Warps, Operand>::per_fragment;
  const int2 at = ntc_warp_tile<M, N, Warps>(slot / per_fragment);
  if (at.x < 0) return M * N;
  const int local = (int)sum.where.x[slot % per_fragment];
  return (at.x + local / 16) * N + at.y + local % 16;
}

// An operand fragment of TF32 elements, loaded as f32, rounded as WMMA requires; others as loaded.
template <typename Operand, typename Fragment>
__device__ __forceinline__ void ntc_round_operand(Fragment& fragment) {
  if constexpr (std::is_same_v<Operand, float>) {
#pragma unroll
    for (int i = 0; i < fragment.num_elements; ++i) {
      fragment.x[i] = nvcuda::wmma::__float_to_tf32(fragment.x[i]);
    }
  }
}

// mem.dot: c = a @ b (c += a @ b where Accumulate) for row-major [M, K] and [K, N] arrays in
// shared memory, by every thread of the block together: each warp runs the k-loop of its tiles of
// c on tensor cores (WMMA: f16, bf16 or TF32 in, f32 accumulated). The barriers: every thread's
// part of a and b is written before any warp loads it, and read before any thread writes them
// again.
template <int M, int N, int K, bool Accumulate, typename T, int Warps>
__device__ __forceinline__ void ntc_dot(const T* a, const T* b, ntc_accumulator<M, N, Warps, T>& c) {
  static_assert(K % 16 == 0, "whole 16 x 16 x 16 tiles");
  using namespace nvcuda;
  using element = typename ntc_wmma<T>::element;
  constexpr int step = ntc_wmma<T>::k;
  __syncthreads();
#pragma unroll
  for (int t = 0; t < c.per_warp; ++t) {
    const int2 at = ntc_warp_tile<M, N, Warps>(t);
    if (at.x < 0) continue;
    if (!Accumulate) wmma::fill_fragment(c.part[t], 0.0f);
    for (int k = 0; k < K; k += step) {
      wmma::fragment<wmma::matrix_a, 16, 16, step, element, wmma::row_major> left;
      wmma::fragment<wmma::matrix_b, 16, 16, step, element, wmma::row_major> right;
      wmma::load_matrix_sync(left, a + at.x * K + k, K);
      wmma::load_matrix_sync(right, b + k * N + at.y, N);
      ntc_round_operand<T>(left);
      ntc_round_operand<T>(right);
      wmma::mma_sync(c.part[t], left, right, c.part[t]);
    }
  }
  __syncthreads();
}

// mem.copy into an accumulator from a row-major [M, N] shared array, and out of one into it; the
// barriers order the copy after the array's writes, and the array's readers after the copy.
template <int M, int N, int Warps, typename Operand>
__device__ __forceinline__ void ntc_copy(const float* from, ntc_accumulator<M, N, Warps, Operand>& to) {
  __syncthreads();
#pragma unroll
  for (int t = 0; t < to.per_warp; ++t) {
    const int2 at = ntc_warp_tile<M, N, Warps>(t);
    if (at.x >= 0) {
      const float* tile = from + at.x * N + at.y;
      nvcuda::wmma::load_matrix_sync(to.part[t], tile, N, nvcuda::wmma::mem_row_major);
    }
  }
}
template <int M, int N, int Warps, typename Operand>
__device__ __forceinline__ void ntc_copy(const ntc_accumulator<M, N, Warps, Operand>& from, float* to) {
#pragma unroll
  for (int t = 0; t < from.per_warp; ++t) {
    const int2 at = ntc_warp_tile<M, N, Warps>(t);
    if (at.x >= 0) {
      float* tile = to + at.x * N + at.y;
      nvcuda::wmma::store_matrix_sync(tile, from.part[t], N, nvcuda::wmma::mem_row_major);
    }
  }
  __syncthreads();
}
