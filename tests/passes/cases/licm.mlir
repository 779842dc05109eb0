// Address math and masks that do not depend on the loop leave it (from the inner loop through the
// outer one when they depend on neither); `+ 1 - 1` and `* 0` terms fold away on the way.
// RUN: ssa.canonicalize
kernel @licm(%x: buffer<f32>, %y: buffer<f32>, %m: index, %n: index, %stride: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %f = arith.constant() {value = 0.0} : tile<f32[16]>
  %pid = index.program_id() {axis = 0} : index
  %acc = scf.for(%zero, %n, %one, %f) : tile<f32[16]> {
  ^(%i: index, %a: tile<f32[16]>):
    %acc2 = scf.for(%zero, %n, %one, %a) : tile<f32[16]> {
    ^(%j: index, %b: tile<f32[16]>):
      %sixteen = arith.constant() {value = 16} : index
      %base = arith.mul(%pid, %sixteen) : index
      %base1 = arith.add(%base, %one) : index
      %base2 = arith.sub(%base1, %one) : index
      %r = tile.arange() {size = 16} : tile<index[16]>
      %bb = tile.broadcast(%base2) {shape = [16]} : tile<index[16]>
      %rows = arith.add(%bb, %r) : tile<index[16]>
      %sb = tile.broadcast(%stride) {shape = [16]} : tile<index[16]>
      %ro = arith.mul(%rows, %sb) : tile<index[16]>
      %mb = tile.broadcast(%m) {shape = [16]} : tile<index[16]>
      %mask = arith.cmp(%rows, %mb) {pred = "lt"} : tile<i1[16]>
      %zi = arith.mul(%i, %zero) : index
      %col = arith.add(%j, %zi) : index
      %cb = tile.broadcast(%col) {shape = [16]} : tile<index[16]>
      %off = arith.add(%ro, %cb) : tile<index[16]>
      %v = mem.load(%x, %off, %mask) : tile<f32[16]>
      %s = arith.add(%b, %v) : tile<f32[16]>
      scf.yield(%s)
    }
    scf.yield(%acc2)
  }
  %r2 = tile.arange() {size = 16} : tile<index[16]>
  mem.store(%y, %r2, %acc)
}
// CHECK: %3 = index.program_id() {axis = 0} : index
// CHECK-NEXT: %4 = arith.constant() {value = 16} : index
// CHECK-NEXT: %5 = arith.mul(%3, %4) : index
// CHECK-NEXT: %6 = tile.arange() {size = 16} : tile<index[16]>
// CHECK-NEXT: %7 = tile.broadcast(%5) {shape = [16]} : tile<index[16]>
// CHECK-NEXT: %8 = arith.add(%7, %6) : tile<index[16]>
// CHECK-NEXT: %9 = tile.broadcast(%stride) {shape = [16]} : tile<index[16]>
// CHECK-NEXT: %10 = arith.mul(%8, %9) : tile<index[16]>
// CHECK-NEXT: %11 = tile.broadcast(%m) {shape = [16]} : tile<index[16]>
// CHECK-NEXT: %12 = arith.cmp(%8, %11) {pred = "lt"} : tile<i1[16]>
// CHECK-NEXT: %13 = scf.for(%0, %n, %1, %2) : tile<f32[16]> {
// CHECK-NEXT: ^(%14: index, %15: tile<f32[16]>):
// CHECK-NEXT: %16 = scf.for(%0, %n, %1, %15) : tile<f32[16]> {
// CHECK-NEXT: ^(%17: index, %18: tile<f32[16]>):
// CHECK-NEXT: %19 = tile.broadcast(%17) {shape = [16]} : tile<index[16]>
// CHECK-NEXT: %20 = arith.add(%10, %19) : tile<index[16]>
// CHECK-NEXT: %21 = mem.load(%x, %20, %12) : tile<f32[16]>
// CHECK-NEXT: %22 = arith.add(%18, %21) : tile<f32[16]>
// CHECK-NEXT: scf.yield(%22)
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield(%16)
// CHECK-NEXT: }
// CHECK-NEXT: mem.store(%y, %6, %13)
// -----
// Ops that read memory or depend on the induction variable stay in the loop.
// RUN: ssa.canonicalize
kernel @stays(%x: buffer<f32>, %n: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  scf.for(%zero, %n, %one) {
  ^(%i: index):
    %v = mem.load(%x, %zero) : f32
    %w = math.exp(%v) : f32
    %k = arith.add(%i, %one) : index
    mem.store(%x, %k, %w)
    scf.yield()
  }
}
// CHECK: ^(%2: index):
// CHECK-NEXT: %3 = mem.load(%x, %0) : f32
// CHECK-NEXT: %4 = math.exp(%3) : f32
// CHECK-NEXT: %5 = arith.add(%2, %1) : index
