// Equal pure ops merge; a value from outside a loop replaces one inside it, and a value inside one
// branch never replaces one in the other branch or after the region. Loads are not merged.
// RUN: ssa.canonicalize
kernel @cse(%x: buffer<f32>, %n: index, %p: i1) {
  %a = tile.arange() {size = 8} : tile<index[8]>
  %b = tile.arange() {size = 8} : tile<index[8]>
  %c = arith.add(%a, %b) : tile<index[8]>
  %v1 = mem.load(%x, %c) : tile<f32[8]>
  %v2 = mem.load(%x, %c) : tile<f32[8]>
  %w = arith.add(%v1, %v2) : tile<f32[8]>
  mem.store(%x, %c, %w)
  %r = scf.if(%p) : tile<f32[8]> {
  ^():
    %e1 = math.exp(%w) : tile<f32[8]>
    scf.yield(%e1)
  } {
  ^():
    %e2 = math.exp(%w) : tile<f32[8]>
    scf.yield(%e2)
  }
  %e3 = math.exp(%w) : tile<f32[8]>
  %s = arith.add(%r, %e3) : tile<f32[8]>
  mem.store(%x, %c, %s)
}
// CHECK: %0 = tile.arange() {size = 8} : tile<index[8]>
// CHECK-NEXT: %1 = arith.add(%0, %0) : tile<index[8]>
// CHECK-NEXT: %2 = mem.load(%x, %1) : tile<f32[8]>
// CHECK-NEXT: %3 = mem.load(%x, %1) : tile<f32[8]>
// CHECK: %5 = scf.if(%p) : tile<f32[8]> {
// CHECK-NEXT: ^():
// CHECK-NEXT: %6 = math.exp(%4) : tile<f32[8]>
// CHECK-NEXT: scf.yield(%6)
// CHECK-NEXT: } {
// CHECK-NEXT: ^():
// CHECK-NEXT: %7 = math.exp(%4) : tile<f32[8]>
// CHECK-NEXT: scf.yield(%7)
// CHECK-NEXT: }
// CHECK-NEXT: %8 = math.exp(%4) : tile<f32[8]>
// -----
// An op in a loop body equal to one before the loop reads the outer value.
// RUN: ssa.canonicalize
kernel @cse_into_loop(%x: buffer<f32>, %n: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %a = tile.arange() {size = 8} : tile<index[8]>
  %v = mem.load(%x, %a) : tile<f32[8]>
  %e = math.exp(%v) : tile<f32[8]>
  mem.store(%x, %a, %e)
  scf.for(%zero, %n, %one) {
  ^(%i: index):
    %ib = tile.broadcast(%i) {shape = [8]} : tile<index[8]>
    %a2 = tile.arange() {size = 8} : tile<index[8]>
    %o = arith.add(%a2, %ib) : tile<index[8]>
    %e2 = math.exp(%v) : tile<f32[8]>
    mem.store(%x, %o, %e2)
    scf.yield()
  }
}
// CHECK: %3 = mem.load(%x, %2) : tile<f32[8]>
// CHECK-NEXT: %4 = math.exp(%3) : tile<f32[8]>
// CHECK-NEXT: mem.store(%x, %2, %4)
// CHECK-NEXT: scf.for(%0, %n, %1) {
// CHECK-NEXT: ^(%5: index):
// CHECK-NEXT: %6 = tile.broadcast(%5) {shape = [8]} : tile<index[8]>
// CHECK-NEXT: %7 = arith.add(%2, %6) : tile<index[8]>
// CHECK-NEXT: mem.store(%x, %7, %4)
// CHECK-NOT: math.exp
// CHECK: }
