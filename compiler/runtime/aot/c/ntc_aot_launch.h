// What every ahead-of-time launch function uses (compiler/runtime/aot/launch.py writes them):
// the message of a refused launch, the grid's arithmetic as Python's, and a tensor's reach.
#pragma once

#include <stdio.h>
#include <stdlib.h>

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
