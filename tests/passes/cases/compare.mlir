// Bounds checks the value ranges decide: arange(16) < 16, pid >= 0, size * stride >= 0, and the
// induction variable against its own loop's bounds. Undecidable ones (arange(16) < %n) stay.
// RUN: ssa.canonicalize
kernel @decided(%out: buffer<i1>, %n: index, %s: index) {
  %pid = index.program_id() {axis = 0} : index
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %r = tile.arange() {size = 16} : tile<index[16]>
  %sixteen = arith.constant() {value = 16} : tile<index[16]>
  %in = arith.cmp(%r, %sixteen) {pred = "lt"} : tile<i1[16]>
  mem.store(%out, %r, %in)
  %nb = tile.broadcast(%n) {shape = [16]} : tile<index[16]>
  %maybe = arith.cmp(%r, %nb) {pred = "lt"} : tile<i1[16]>
  mem.store(%out, %r, %maybe)
  %ns = arith.mul(%n, %s) : index
  %q = arith.idiv(%ns, %one) : index
  %ge = arith.cmp(%q, %zero) {pred = "ge"} : i1
  mem.store(%out, %pid, %ge)
  %neg = arith.cmp(%pid, %zero) {pred = "lt"} : i1
  mem.store(%out, %pid, %neg)
  scf.for(%one, %n, %one) {
  ^(%i: index):
    %below = arith.cmp(%i, %n) {pred = "lt"} : i1
    mem.store(%out, %i, %below)
    %above = arith.cmp(%one, %i) {pred = "le"} : i1
    mem.store(%out, %i, %above)
    %past = arith.cmp(%n, %i) {pred = "le"} : i1
    mem.store(%out, %i, %past)
    %unknown = arith.cmp(%i, %s) {pred = "lt"} : i1
    mem.store(%out, %i, %unknown)
    scf.yield()
  }
}
// CHECK: %3 = arith.constant() {value = true} : tile<i1[16]>
// CHECK-NEXT: mem.store(%out, %2, %3)
// CHECK: %5 = arith.cmp(%2, %4) {pred = "lt"} : tile<i1[16]>
// CHECK-NEXT: mem.store(%out, %2, %5)
// CHECK-NEXT: %6 = arith.constant() {value = true} : i1
// CHECK-NEXT: mem.store(%out, %0, %6)
// CHECK-NEXT: %7 = arith.constant() {value = false} : i1
// CHECK-NEXT: mem.store(%out, %0, %7)
// CHECK-NEXT: scf.for(%1, %n, %1) {
// CHECK-NEXT: ^(%8: index):
// CHECK-NEXT: mem.store(%out, %8, %6)
// CHECK-NEXT: mem.store(%out, %8, %6)
// CHECK-NEXT: mem.store(%out, %8, %7)
// CHECK-NEXT: %9 = arith.cmp(%8, %s) {pred = "lt"} : i1
// -----
// A step that may be zero or negative proves nothing about the induction variable.
// RUN: ssa.canonicalize
kernel @unknown_step(%out: buffer<i1>, %n: index, %step: i64) {
  %zero = arith.constant() {value = 0} : index
  %st = arith.cast(%step) {dtype = "index"} : index
  scf.for(%zero, %n, %st) {
  ^(%i: index):
    %below = arith.cmp(%i, %n) {pred = "lt"} : i1
    mem.store(%out, %i, %below)
    scf.yield()
  }
}
// CHECK: %3 = arith.cmp(%2, %n) {pred = "lt"} : i1
// -----
// i32 math may wrap, so a product of non-negative i32 values is not known to be non-negative;
// an i32 arange is, and so is a cast of a non-negative index value to i64.
// RUN: ssa.canonicalize
kernel @narrow(%out: buffer<i1>, %n: index) {
  %zero = arith.constant() {value = 0} : i32
  %pid = index.program_id() {axis = 0} : index
  %p32 = arith.cast(%pid) {dtype = "i32"} : i32
  %sq = arith.mul(%p32, %p32) : i32
  %wraps = arith.cmp(%sq, %zero) {pred = "ge"} : i1
  mem.store(%out, %pid, %wraps)
  %r = tile.arange() {size = 8} : tile<index[8]>
  %r32 = arith.cast(%r) {dtype = "i32"} : tile<i32[8]>
  %z8 = tile.broadcast(%zero) {shape = [8]} : tile<i32[8]>
  %fits = arith.cmp(%r32, %z8) {pred = "ge"} : tile<i1[8]>
  mem.store(%out, %r, %fits)
  %n64 = arith.cast(%n) {dtype = "i64"} : i64
  %zero64 = arith.constant() {value = 0} : i64
  %wide = arith.cmp(%n64, %zero64) {pred = "ge"} : i1
  mem.store(%out, %pid, %wide)
}
// CHECK: %4 = arith.cmp(%3, %0) {pred = "ge"} : i1
// CHECK-NEXT: mem.store(%out, %1, %4)
// CHECK-NEXT: %5 = tile.arange() {size = 8} : tile<index[8]>
// CHECK-NEXT: %6 = arith.constant() {value = true} : tile<i1[8]>
// CHECK-NEXT: mem.store(%out, %5, %6)
// CHECK-NEXT: %7 = arith.constant() {value = true} : i1
// CHECK-NEXT: mem.store(%out, %1, %7)
// -----
// A program index unravelled over a grid of ceil-divided sizes is non-negative ((n - 1) // B is 0 at
// worst, dividing by a size may assume it is not 0), and a remainder stays below its divisor.
// RUN: ssa.canonicalize
kernel @unravel(%out: buffer<i1>, %n: index, %m: index) attributes {meta = [["B", 32, 1024]]} {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %b = index.meta() {name = "B"} : index
  %pid = index.program_id() {axis = 0} : index
  %n1 = arith.sub(%n, %one) : index
  %q = arith.idiv(%n1, %b) : index
  %blocks = arith.add(%q, %one) : index
  %outer = arith.mul(%m, %blocks) : index
  %row = arith.idiv(%pid, %outer) : index
  %rest = arith.irem(%pid, %blocks) : index
  %row_ok = arith.cmp(%row, %zero) {pred = "ge"} : i1
  mem.store(%out, %pid, %row_ok)
  %rest_ok = arith.cmp(%rest, %blocks) {pred = "lt"} : i1
  mem.store(%out, %one, %rest_ok)
}
// CHECK-NOT: arith.cmp
// CHECK: %2 = arith.constant() {value = true} : i1
// CHECK-NEXT: mem.store(%out, %1, %2)
// CHECK-NEXT: mem.store(%out, %0, %2)
