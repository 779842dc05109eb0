// A target without a native linalg.dot gets casts to the result dtype, expand_dims + broadcast to
// [M, K, N], a multiply and a reduce.sum over K.
// RUN: ssa.decompose_linalg
// TARGET: -linalg.dot
kernel @dot(%a: buffer<f16>, %b: buffer<f16>, %c: buffer<f32>) {
  %r = tile.arange() {size = 4} : tile<index[4]>
  %r2 = tile.expand_dims(%r) {axis = 1} : tile<index[4, 1]>
  %ia = tile.broadcast(%r2) {shape = [4, 8]} : tile<index[4, 8]>
  %ib = tile.broadcast(%r2) {shape = [4, 2]} : tile<index[4, 2]>
  %x = mem.load(%a, %ia) : tile<f16[4, 8]>
  %y = mem.load(%b, %ib) : tile<f16[4, 2]>
  %xt = tile.trans(%x) {perm = [1, 0]} : tile<f16[8, 4]>
  %d = linalg.dot(%xt, %y) {dtype = "f32"} : tile<f32[8, 2]>
  %r3 = tile.arange() {size = 8} : tile<index[8]>
  %r4 = tile.expand_dims(%r3) {axis = 1} : tile<index[8, 1]>
  %id = tile.broadcast(%r4) {shape = [8, 2]} : tile<index[8, 2]>
  mem.store(%c, %id, %d)
}
// CHECK: %6 = tile.trans(%4) {perm = [1, 0]} : tile<f16[8, 4]>
// CHECK-NEXT: %7 = arith.cast(%6) {dtype = "f32"} : tile<f32[8, 4]>
// CHECK-NEXT: %8 = arith.cast(%5) {dtype = "f32"} : tile<f32[4, 2]>
// CHECK-NEXT: %9 = tile.expand_dims(%7) {axis = 2} : tile<f32[8, 4, 1]>
// CHECK-NEXT: %10 = tile.broadcast(%9) {shape = [8, 4, 2]} : tile<f32[8, 4, 2]>
// CHECK-NEXT: %11 = tile.expand_dims(%8) {axis = 0} : tile<f32[1, 4, 2]>
// CHECK-NEXT: %12 = tile.broadcast(%11) {shape = [8, 4, 2]} : tile<f32[8, 4, 2]>
// CHECK-NEXT: %13 = arith.mul(%10, %12) : tile<f32[8, 4, 2]>
// CHECK-NEXT: %14 = reduce.sum(%13) {axis = 1} : tile<f32[8, 2]>
// CHECK-NOT: linalg.dot
// CHECK: mem.store(%c, %17, %14)
// -----
// A target that runs linalg.dot keeps it.
// RUN: ssa.decompose_linalg
kernel @dot(%a: buffer<f32>, %c: buffer<f32>) {
  %r = tile.arange() {size = 4} : tile<index[4]>
  %r2 = tile.expand_dims(%r) {axis = 1} : tile<index[4, 1]>
  %i = tile.broadcast(%r2) {shape = [4, 4]} : tile<index[4, 4]>
  %x = mem.load(%a, %i) : tile<f32[4, 4]>
  %d = linalg.dot(%x, %x) {dtype = "f32"} : tile<f32[4, 4]>
  mem.store(%c, %i, %d)
}
// CHECK: %4 = linalg.dot(%3, %3) {dtype = "f32"} : tile<f32[4, 4]>
