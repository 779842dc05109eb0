// Ops the target lacks are decomposed into ones it has, transitively: rsqrt -> 1 / sqrt,
// exp -> exp2(x * log2(e)), max -> select.where(x > y or y is NaN), abs -> select.where(x < 0,
// -x, x).
// RUN: ssa.lower_backend_intrinsics
// TARGET: -math.rsqrt -math.exp -arith.max -math.abs
kernel @intrinsics(%x: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f32
  %r = math.rsqrt(%v) : f32
  %e = math.exp(%r) : f32
  %m = arith.max(%e, %v) : f32
  %a = math.abs(%m) : f32
  mem.store(%x, %zero, %a)
}
// CHECK: %2 = arith.constant() {value = 1.0} : f32
// CHECK-NEXT: %3 = math.sqrt(%1) : f32
// CHECK-NEXT: %4 = arith.div(%2, %3) : f32
// CHECK-NEXT: %5 = arith.constant() {value = 1.4426950216293335} : f32
// CHECK-NEXT: %6 = arith.mul(%4, %5) : f32
// CHECK-NEXT: %7 = math.exp2(%6) : f32
// CHECK-NEXT: %8 = arith.cmp(%7, %1) {pred = "gt"} : i1
// CHECK-NEXT: %9 = arith.cmp(%1, %1) {pred = "ne"} : i1
// CHECK-NEXT: %10 = arith.or(%8, %9) : i1
// CHECK-NEXT: %11 = select.where(%10, %7, %1) : f32
// CHECK-NEXT: %12 = arith.constant() {value = 0.0} : f32
// CHECK-NEXT: %13 = arith.cmp(%11, %12) {pred = "lt"} : i1
// CHECK-NEXT: %14 = arith.neg(%11) : f32
// CHECK-NEXT: %15 = select.where(%13, %14, %11) : f32
// CHECK-NEXT: mem.store(%x, %0, %15)
// -----
// A chain: the target lacks math.pow and math.log2, so pow's log2 (taken in f64, of |x|) becomes
// log / ln 2.
// RUN: ssa.lower_backend_intrinsics
// TARGET: -math.pow -math.log2
kernel @chain(%x: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f32
  %p = math.pow(%v, %v) : f32
  mem.store(%x, %zero, %p)
}
// CHECK: %2 = arith.cast(%1) {dtype = "f64"} : f64
// CHECK: %4 = math.abs(%2) : f64
// CHECK-NEXT: %5 = math.log(%4) : f64
// CHECK-NEXT: %6 = arith.constant() {value = 0.6931471805599453} : f64
// CHECK-NEXT: %7 = arith.div(%5, %6) : f64
// CHECK-NEXT: %8 = arith.mul(%3, %7) : f64
// CHECK-NEXT: %9 = math.exp2(%8) : f64
// CHECK-NOT: math.log2
// -----
// An illegal op without a generic rewrite is an error naming the op and the target.
// RUN: ssa.lower_backend_intrinsics
// TARGET: -math.sin
// ERROR: ssa.lower_backend_intrinsics: math.sin is not legal for target stand-in and has no generic rewrite: this program needs what that form lacks; compile it for another backend or device
kernel @sin(%x: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f32
  %s = math.sin(%v) : f32
  mem.store(%x, %zero, %s)
}
// -----
// A rewrite that needs an op the target also lacks names the chain.
// RUN: ssa.lower_backend_intrinsics
// TARGET: -math.rsqrt -math.sqrt
// ERROR: math.sqrt is not legal for target stand-in (needed to lower math.rsqrt)
kernel @rsqrt(%x: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f32
  %s = math.rsqrt(%v) : f32
  mem.store(%x, %zero, %s)
}
// -----
// Rewrites that would go round in a cycle are refused before anything is rewritten.
// RUN: ssa.lower_backend_intrinsics
// TARGET: -math.exp -math.exp2
// ERROR: cannot lower math.exp for target stand-in: its generic rewrites form a cycle (math.exp -> math.exp2 -> math.exp)
kernel @cycle(%x: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f32
  %s = math.exp(%v) : f32
  mem.store(%x, %zero, %s)
}
// -----
// An op the target takes only on wider floats computes there: f16 -> f32 and back. A decomposed
// op's parts are widened too (rsqrt -> 1 / sqrt, with sqrt taken on f32 only).
// RUN: ssa.lower_backend_intrinsics
// TARGET: -math.rsqrt math.exp:f32,f64 math.sqrt:f32
kernel @widen(%x: buffer<f16>) {
  %r = tile.arange() {size = 4} : tile<index[4]>
  %v = mem.load(%x, %r) : tile<f16[4]>
  %e = math.exp(%v) : tile<f16[4]>
  %s = math.rsqrt(%e) : tile<f16[4]>
  mem.store(%x, %r, %s)
}
// CHECK: %1 = mem.load(%x, %0) : tile<f16[4]>
// CHECK-NEXT: %2 = arith.cast(%1) {dtype = "f32"} : tile<f32[4]>
// CHECK-NEXT: %3 = math.exp(%2) : tile<f32[4]>
// CHECK-NEXT: %4 = arith.cast(%3) {dtype = "f16"} : tile<f16[4]>
// CHECK-NEXT: %5 = arith.constant() {value = 1.0} : tile<f16[4]>
// CHECK-NEXT: %6 = arith.cast(%4) {dtype = "f32"} : tile<f32[4]>
// CHECK-NEXT: %7 = math.sqrt(%6) : tile<f32[4]>
// CHECK-NEXT: %8 = arith.cast(%7) {dtype = "f16"} : tile<f16[4]>
// CHECK-NEXT: %9 = arith.div(%5, %8) : tile<f16[4]>
// CHECK-NEXT: mem.store(%x, %0, %9)
// -----
// No wider float the target takes: an error naming the op, the dtype and the target.
// RUN: ssa.lower_backend_intrinsics
// TARGET: math.exp:f16
// ERROR: ssa.lower_backend_intrinsics: target stand-in does not take math.exp on f32 nor on a wider float dtype
kernel @narrow_only(%x: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f32
  %e = math.exp(%v) : f32
  mem.store(%x, %zero, %e)
}
// -----
// Memory ops are not widened.
// RUN: ssa.lower_backend_intrinsics
// TARGET: mem.store:f32,index
// ERROR: target stand-in does not take mem.store on f16, and only pure ops are widened
kernel @store(%x: buffer<f16>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%x, %zero) : f16
  mem.store(%x, %zero, %v)
}
