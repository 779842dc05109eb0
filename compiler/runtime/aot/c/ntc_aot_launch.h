// What every ahead-of-time launch function uses (compiler/runtime/aot/launch.py writes them):
// the message of a refused launch, the grid's arithmetic as Python's, and a tensor's reach.
#pragma once

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static thread_local char ntc_message[512];

static int64_t ntc_floordiv(int64_t a, int64_t b, bool* zero) {
  if (b == 0) { *zero = true; return 0; }
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t ntc_mod(int64_t a, int64_t b, bool* zero) {
  if (b == 0) { *zero = true; return 0; }
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// The element offset one past the furthest element of a tensor (0 when it is empty).
static int64_t ntc_extent(NineToothedTensor t, int ndim) {
  int64_t end = 1;
  for (int d = 0; d < ndim; ++d) {
    if (t.shape[d] == 0) return 0;
    end += (int64_t)(t.shape[d] - 1) * (t.strides[d] < 0 ? -t.strides[d] : t.strides[d]);
  }
  return end;
}

// The furthest element offset a kernel with tiles of up to pad + 1 elements may compute for a
// tensor, masked lanes included (compiler/runtime/index_width.py reckons it the same way).
static int64_t ntc_reach(NineToothedTensor t, int ndim, int64_t pad) {
  int64_t reach = 0, largest = 0;
  for (int d = 0; d < ndim; ++d) {
    int64_t size = (int64_t)t.shape[d];
    reach += (size + pad) * (t.strides[d] < 0 ? -t.strides[d] : t.strides[d]);
    largest = size > largest ? size : largest;
  }
  return (reach > largest ? reach : largest) + pad;
}

// A half-precision value (its 16 bits) as a double: a scalar passed in one half type that the
// kernel takes in another type, or that TVM FFI passes as a double.
static double ntc_half_value(uint16_t bits, bool brain) {
  if (brain) {
    uint32_t word = (uint32_t)bits << 16;
    float value;
    memcpy(&value, &word, sizeof value);
    return value;
  }
  int exponent = (bits >> 10) & 31, mantissa = bits & 1023;
  double sign = (bits & 32768) ? -1.0 : 1.0;
  if (exponent == 0) return sign * mantissa / 16777216.0;  // 2^-24
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * (1.0 + mantissa / 1024.0) * ldexp(1.0, exponent - 15);
}
