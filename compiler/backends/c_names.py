"""Names a kernel may not give its values where the source becomes C or C++: the keywords and the
types the generated code declares (fixed-width integers, half precision); and, where the kernel
itself is a C function of its own name, the functions of the C library headers the source
includes (`C_LIBRARY`: a kernel named `fma` would redeclare <math.h>'s)."""

from __future__ import annotations

C_RESERVED = frozenset(
    """
alignas alignof and asm auto bool break case catch char class const constexpr continue default
delete do double else enum explicit extern false float for friend goto if inline int long mutable
namespace new noexcept not nullptr operator or private protected public register return short
signed sizeof static struct switch template this throw true try typedef typename union unsigned
using virtual void volatile while xor INFINITY NAN half bfloat16_t size_t int8_t int16_t int32_t
int64_t uint8_t uint16_t uint32_t uint64_t
""".split()
)

# <math.h> (each with its f and l forms), <stdlib.h>, <string.h> and <stdio.h> as the shims use
# them, and `main`.
_MATH = """
acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh erf erfc exp exp2 expm1 fabs
fdim floor fma fmax fmin fmod frexp hypot ilogb ldexp lgamma llrint llround log log10 log1p log2
logb lrint lround modf nan nearbyint nextafter nexttoward pow remainder remquo rint round scalbln
scalbn sin sinh sqrt tan tanh tgamma trunc
""".split()
C_LIBRARY = frozenset(
    [*_MATH, *(f"{name}f" for name in _MATH), *(f"{name}l" for name in _MATH)]
    + """
isnan isinf isfinite isnormal signbit fpclassify abs labs llabs div ldiv malloc calloc realloc
free aligned_alloc abort exit atexit memcpy memmove memset memcmp strlen strcmp printf snprintf
sprintf fprintf puts main rsqrt
""".split()
)
