"""Names a kernel may not give its values where the source becomes C or C++: the keywords, and
the types the generated code declares (fixed-width integers, half precision)."""

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
