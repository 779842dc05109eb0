// CUDA C++ kernels as plain C++ on the CPU: the launcher compiles an emitted kernel with
// `g++ -include` this header and runs each block with a single thread (blockDim.x == 1), so a
// thread-strided loop covers its whole range and a barrier has nothing to wait for.
#pragma once

#include <math.h>  // C++'s <math.h> also puts the float overloads (exp(float), ...) in ::,
                   // where CUDA's math library has them
#include <stdint.h>
#include <string.h>

#include <utility>

#define __global__
#define __shared__  // one thread per block: block-shared arrays are the thread's own
#define __align__(bytes) alignas(bytes)

struct ntc_index3 {
  unsigned x, y, z;
};

// Per calling thread: ctypes releases the GIL, so two Python threads may launch at once.
static thread_local ntc_index3 blockIdx = {0, 0, 0};
static thread_local ntc_index3 threadIdx = {0, 0, 0};
static thread_local ntc_index3 blockDim = {1, 1, 1};
static thread_local ntc_index3 gridDim = {1, 1, 1};

static inline void __syncthreads() {}

// The block's one thread is every thread: its share of n elements is all n.
#define NTC_THREADS(threads) ((int)blockDim.x)
#define NTC_ROUNDS(n, threads, lanes) (n)

// mem.load_lanes / mem.store_lanes: a thread's `Lanes` consecutive elements of a buffer at once.
// On a GPU they are words of up to 16 bytes, and one at an address its width does not divide
// faults (cudaErrorMisalignedAddress); here the launch reports such an access the same way.
#define NTC_MISALIGNED 716
static thread_local int ntc_fault = 0;

template <int Lanes, typename T>
static inline void ntc_check_lanes(const T* buffer) {
  constexpr uintptr_t bytes = Lanes * sizeof(T), width = bytes < 16 ? bytes : 16;
  if (reinterpret_cast<uintptr_t>(buffer) % width) ntc_fault = NTC_MISALIGNED;
}

template <int Lanes, typename T>
static inline void ntc_load_lanes(const T* buffer, T* lanes) {
  ntc_check_lanes<Lanes>(buffer);
  memcpy(lanes, buffer, Lanes * sizeof(T));
}

template <int Lanes, typename T>
static inline void ntc_store_lanes(const T* lanes, T* buffer) {
  ntc_check_lanes<Lanes>(buffer);
  memcpy(buffer, lanes, Lanes * sizeof(T));
}

// f16 is g++'s native IEEE half (_Float16); bf16 is its storage with float arithmetic, as CUDA's
// __nv_bfloat16 converts to and from float (round to nearest even).
typedef _Float16 __half;

struct __nv_bfloat16 {
  uint16_t bits;
  __nv_bfloat16() = default;
  __nv_bfloat16(float value) {
    uint32_t word;
    memcpy(&word, &value, sizeof word);
    bits = isnan(value) ? 0x7fc0 : (word + 0x7fff + ((word >> 16) & 1)) >> 16;
  }
  operator float() const {
    uint32_t word = uint32_t(bits) << 16;
    float value;
    memcpy(&value, &word, sizeof value);
    return value;
  }
};

// arith.bitcast: the same bits as another type of the same width.
template <typename To, typename From>
static inline To ntc_bitcast(From value) {
  To result;
  memcpy(&result, &value, sizeof result);
  return result;
}

// mem.atomic: one thread at a time runs here, so a read-modify-write is atomic as it is.
#define NTC_ATOMIC(kind, update)                     \
  template <typename T>                              \
  static inline T ntc_atomic_##kind(T* at, T value) { \
    T old = *at;                                     \
    *at = (update);                                  \
    return old;                                      \
  }
NTC_ATOMIC(add, old + value)
NTC_ATOMIC(max, old > value ? old : value)
NTC_ATOMIC(min, old < value ? old : value)
NTC_ATOMIC(and, old & value)
NTC_ATOMIC(or, old | value)
NTC_ATOMIC(xor, old ^ value)
NTC_ATOMIC(xchg, value)
#undef NTC_ATOMIC
template <typename T>
static inline T ntc_atomic_cas(T* at, T value, T compare) {
  T old = *at;
  if (old == compare) *at = value;
  return old;
}

// CUDA's math library has these for float and double; the C++ library does not.
static inline float rsqrt(float x) { return 1.0f / sqrt(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }

// The grid, block after block: `args[i]` points at the kernel's i-th argument, laid out as
// cudaLaunchKernel reads it on a GPU, so both devices share one calling convention.
template <class... Params, size_t... I>
static void ntc_call(void (*kernel)(Params...), void** args, std::index_sequence<I...>) {
  kernel(*static_cast<Params*>(args[I])...);
}

template <class... Params>
static void ntc_run_grid(void (*kernel)(Params...), unsigned grid, void** args) {
  gridDim.x = grid;
  for (unsigned block = 0; block < grid; ++block) {
    blockIdx.x = block;
    ntc_call(kernel, args, std::index_sequence_for<Params...>{});
  }
}

// mem.reduce: the block's one thread combines each result's elements in order, as the loop form.
struct ntc_add {
  template <typename T>
  T operator()(T a, T b) const { return a + b; }
};
// arith.max and arith.min: IEEE maxNum and minNum, as Triton's maximum and minimum (a NaN
// operand gives the other).
struct ntc_max {
  template <typename T>
  T operator()(T a, T b) const { return (a > b || b != b) ? a : b; }
  float operator()(float a, float b) const { return fmaxf(a, b); }
  double operator()(double a, double b) const { return fmax(a, b); }
};
struct ntc_min {
  template <typename T>
  T operator()(T a, T b) const { return (a < b || b != b) ? a : b; }
  float operator()(float a, float b) const { return fminf(a, b); }
  double operator()(double a, double b) const { return fmin(a, b); }
};
template <int Outer, int Length, int Inner, typename T, typename Combine>
static inline void ntc_reduce(const T* from, T* to, Combine combine) {
  for (int result = 0; result < Outer * Inner; ++result) {
    const T* row = from + result / Inner * Length * Inner + result % Inner;
    T part = row[0];
    for (int l = 1; l < Length; ++l) part = combine(part, row[l * Inner]);
    to[result] = part;
  }
}

// An array of the accumulator scope: the GPU form keeps it in the warps' tensor-core registers;
// here the block's one thread holds the whole row-major [M, N] sum. Its slots (mem.read and
// mem.write index them) run last to first, so that code taking a slot for a position goes as
// wrong here as on a GPU, where the tensor cores choose which thread holds which element.
template <int M, int N, int Warps, typename Operand>
struct ntc_accumulator {
  float part[M * N];
  float& operator[](int slot) { return part[M * N - 1 - slot]; }
};

// mem.owned_slots and mem.owned_position: every element, and the position of a slot's.
template <int M, int N, int Warps, typename Operand>
static inline int ntc_owned_slots(const ntc_accumulator<M, N, Warps, Operand>&) {
  return M * N;
}
template <int M, int N, int Warps, typename Operand>
static inline int ntc_owned_position(const ntc_accumulator<M, N, Warps, Operand>&, int slot) {
  return M * N - 1 - slot;
}

// mem.dot: the block's one thread computes all of c, each element's f32 sum in k order as the
// loop form's, from c's own value where Accumulate.
template <int M, int N, int K, bool Accumulate, typename T, int Warps>
static inline void ntc_dot(const T* a, const T* b, ntc_accumulator<M, N, Warps, T>& c) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float sum = Accumulate ? c.part[i * N + j] : 0.0f;
      for (int k = 0; k < K; ++k) sum += float(a[i * K + k]) * float(b[k * N + j]);
      c.part[i * N + j] = sum;
    }
  }
}

// mem.copy into and out of an accumulator.
template <int M, int N, int Warps, typename Operand>
static inline void ntc_copy(const float* from, ntc_accumulator<M, N, Warps, Operand>& to) {
  memcpy(to.part, from, sizeof to.part);
}
template <int M, int N, int Warps, typename Operand>
static inline void ntc_copy(const ntc_accumulator<M, N, Warps, Operand>& from, float* to) {
  memcpy(to, from.part, sizeof from.part);
}
