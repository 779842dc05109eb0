// Mask chains lose repeated terms and put loop-invariant terms first, so the invariant part of a
// mask leaves the loop as one value.
// RUN: ssa.canonicalize
kernel @masks(%x: buffer<f32>, %n: index, %m: index, %p: i1, %q: i1) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %acc = arith.constant() {value = 0.0} : f32
  %r = scf.for(%zero, %n, %one, %acc) : f32 {
  ^(%i: index, %a: f32):
    %inside = arith.cmp(%i, %m) {pred = "lt"} : i1
    %m1 = arith.and(%inside, %p) : i1
    %m2 = arith.and(%m1, %q) : i1
    %m3 = arith.and(%m2, %p) : i1
    %v = mem.load(%x, %i, %m3) : f32
    %s = arith.add(%a, %v) : f32
    scf.yield(%s)
  }
  mem.store(%x, %zero, %r)
}
// CHECK: %3 = arith.and(%p, %q) : i1
// CHECK-NEXT: %4 = scf.for(%0, %n, %1, %2) : f32 {
// CHECK-NEXT: ^(%5: index, %6: f32):
// CHECK-NEXT: %7 = arith.cmp(%5, %m) {pred = "lt"} : i1
// CHECK-NEXT: %8 = arith.and(%3, %7) : i1
// CHECK-NEXT: %9 = mem.load(%x, %5, %8) : f32
