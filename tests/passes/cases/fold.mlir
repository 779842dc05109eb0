// Arithmetic on constants, splats included, folds to one constant of the result type.
// RUN: ssa.canonicalize
kernel @fold_arith(%out: buffer<i32>, %fout: buffer<f16>) {
  %o = arith.constant() {value = 0} : index
  %two = arith.constant() {value = 2} : i32
  %three = arith.constant() {value = 3} : i32
  %sum = arith.add(%two, %three) : i32
  %prod = arith.mul(%sum, %three) : i32
  %neg = arith.constant() {value = -7} : i32
  %q = arith.idiv(%neg, %two) : i32
  %r = arith.irem(%neg, %two) : i32
  %t = arith.add(%prod, %q) : i32
  %u = arith.add(%t, %r) : i32
  mem.store(%out, %o, %u)
  %tile = tile.broadcast(%two) {shape = [4]} : tile<i32[4]>
  %e = tile.expand_dims(%tile) {axis = 0} : tile<i32[1, 4]>
  %offs = tile.arange() {size = 4} : tile<index[4]>
  %offs2 = tile.expand_dims(%offs) {axis = 0} : tile<index[1, 4]>
  %ee = arith.mul(%e, %e) : tile<i32[1, 4]>
  mem.store(%out, %offs2, %ee)
  %tenth = arith.constant() {value = 0.1} : f32
  %h = arith.cast(%tenth) {dtype = "f16"} : f16
  mem.store(%fout, %o, %h)
}
// CHECK: %0 = arith.constant() {value = 0} : index
// CHECK-NEXT: %1 = arith.constant() {value = 11} : i32
// CHECK-NEXT: mem.store(%out, %0, %1)
// CHECK-NEXT: %2 = tile.arange() {size = 4} : tile<index[4]>
// CHECK-NEXT: %3 = tile.expand_dims(%2) {axis = 0} : tile<index[1, 4]>
// CHECK-NEXT: %4 = arith.constant() {value = 4} : tile<i32[1, 4]>
// CHECK-NEXT: mem.store(%out, %3, %4)
// CHECK-NEXT: %5 = arith.constant() {value = 0.0999755859375} : f16
// CHECK-NEXT: mem.store(%fout, %0, %5)
// CHECK-NEXT: }
// -----
// Identities: x+0, 0+x, x-0, x*1, 1*x, x*0, 0*x and x//1 reduce to an operand or zero.
// RUN: ssa.canonicalize
kernel @identities(%out: buffer<index>, %x: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %a = arith.add(%x, %zero) : index
  %b = arith.add(%zero, %a) : index
  %c = arith.sub(%b, %zero) : index
  %d = arith.mul(%c, %one) : index
  %e = arith.mul(%one, %d) : index
  %f = arith.idiv(%e, %one) : index
  mem.store(%out, %f, %f)
  %g = arith.mul(%x, %zero) : index
  %h = arith.mul(%zero, %x) : index
  %i = arith.add(%g, %h) : index
  mem.store(%out, %x, %i)
}
// CHECK: kernel @identities
// CHECK-NEXT: %0 = arith.constant() {value = 0} : index
// CHECK-NEXT: mem.store(%out, %x, %x)
// CHECK-NEXT: mem.store(%out, %x, %0)
// CHECK-NEXT: }
// -----
// Floats keep the identities that are not exact: x+0.0 (x = -0.0) and x*0.0 (x = inf, nan).
// RUN: ssa.canonicalize
kernel @float_identities(%out: buffer<f32>, %x: f32) {
  %o = arith.constant() {value = 0} : index
  %zero = arith.constant() {value = 0.0} : f32
  %one = arith.constant() {value = 1.0} : f32
  %a = arith.add(%x, %zero) : f32
  %b = arith.mul(%a, %zero) : f32
  %c = arith.mul(%b, %one) : f32
  %d = arith.sub(%c, %zero) : f32
  %e = arith.div(%d, %one) : f32
  mem.store(%out, %o, %e)
}
// CHECK: %1 = arith.constant() {value = 0.0} : f32
// CHECK-NEXT: %2 = arith.add(%x, %1) : f32
// CHECK-NEXT: %3 = arith.mul(%2, %1) : f32
// CHECK-NEXT: mem.store(%out, %0, %3)
// -----
// Folding stops where the result would not fit its integer type, or would divide by zero.
// RUN: ssa.canonicalize
kernel @no_overflow(%out: buffer<i8>) {
  %o = arith.constant() {value = 0} : index
  %big = arith.constant() {value = 100} : i8
  %zero = arith.constant() {value = 0} : i8
  %sum = arith.add(%big, %big) : i8
  %q = arith.idiv(%big, %zero) : i8
  %s = arith.sub(%sum, %q) : i8
  mem.store(%out, %o, %s)
}
// CHECK: %3 = arith.add(%1, %1) : i8
// CHECK-NEXT: %4 = arith.idiv(%1, %2) : i8
// CHECK-NEXT: %5 = arith.sub(%3, %4) : i8
// -----
// Logic on constant i1, double negation and select.where on a constant condition.
// RUN: ssa.canonicalize
kernel @logic(%out: buffer<f32>, %x: f32, %y: f32, %p: i1) {
  %o = arith.constant() {value = 0} : index
  %t = arith.constant() {value = true} : i1
  %f = arith.constant() {value = false} : i1
  %a = arith.and(%p, %t) : i1
  %b = arith.or(%a, %f) : i1
  %nb = arith.not(%b) : i1
  %nnb = arith.not(%nb) : i1
  %s = select.where(%nnb, %x, %y) : f32
  mem.store(%out, %o, %s)
  %c = arith.and(%p, %f) : i1
  %d = arith.or(%c, %t) : i1
  %nd = arith.not(%d) : i1
  %s2 = select.where(%nd, %x, %y) : f32
  mem.store(%out, %o, %s2)
}
// CHECK: %1 = select.where(%p, %x, %y) : f32
// CHECK-NEXT: mem.store(%out, %0, %1)
// CHECK-NEXT: mem.store(%out, %0, %y)
// -----
// Offsets reassociate: (a + 1) - 1 vanishes, (a + 3) + 4 and (a - 2) - 5 become one add or sub.
// RUN: ssa.canonicalize
kernel @reassociate(%out: buffer<index>, %a: index) {
  %one = arith.constant() {value = 1} : index
  %b = arith.add(%a, %one) : index
  %c = arith.sub(%b, %one) : index
  mem.store(%out, %c, %c)
  %three = arith.constant() {value = 3} : index
  %four = arith.constant() {value = 4} : index
  %d = arith.add(%three, %a) : index
  %e = arith.add(%d, %four) : index
  mem.store(%out, %e, %e)
  %two = arith.constant() {value = 2} : index
  %five = arith.constant() {value = 5} : index
  %f = arith.sub(%a, %two) : index
  %g = arith.sub(%f, %five) : index
  mem.store(%out, %g, %g)
}
// CHECK: mem.store(%out, %a, %a)
// CHECK-NEXT: %0 = arith.constant() {value = 7} : index
// CHECK-NEXT: %1 = arith.add(%a, %0) : index
// CHECK-NEXT: mem.store(%out, %1, %1)
// CHECK-NEXT: %2 = arith.sub(%a, %0) : index
// CHECK-NEXT: mem.store(%out, %2, %2)
// -----
// A float division by a power of two or a zero becomes a product with the exact reciprocal
// (x / -0.0 is x * -inf); by any other constant it stays a division.
// RUN: ssa.canonicalize
kernel @reciprocal(%out: buffer<f32>, %x: f32) {
  %o = arith.constant() {value = 0} : index
  %four = arith.constant() {value = 4.0} : f32
  %a = arith.div(%x, %four) : f32
  mem.store(%out, %o, %a)
  %negzero = arith.constant() {value = -0.0} : f32
  %b = arith.div(%x, %negzero) : f32
  mem.store(%out, %o, %b)
  %three = arith.constant() {value = 3.0} : f32
  %c = arith.div(%x, %three) : f32
  mem.store(%out, %o, %c)
}
// CHECK: %0 = arith.constant() {value = 0} : index
// CHECK-NEXT: %1 = arith.constant() {value = 0.25} : f32
// CHECK-NEXT: %2 = arith.mul(%x, %1) : f32
// CHECK-NEXT: mem.store(%out, %0, %2)
// CHECK-NEXT: %3 = arith.constant() {value = -inf} : f32
// CHECK-NEXT: %4 = arith.mul(%x, %3) : f32
// CHECK-NEXT: mem.store(%out, %0, %4)
// CHECK-NEXT: %5 = arith.constant() {value = 3.0} : f32
// CHECK-NEXT: %6 = arith.div(%x, %5) : f32
// CHECK-NEXT: mem.store(%out, %0, %6)
// -----
// A reduction along an axis of one element is a reshape of its source (every kind: the sum's and
// the min's are one reshape after CSE); one along a longer axis stays.
// RUN: ssa.canonicalize
kernel @reduce_one(%out: buffer<f32>, %x: buffer<f32>) {
  %a = tile.arange() {size = 8} : tile<index[8]>
  %r = tile.reshape(%a) {shape = [1, 8]} : tile<index[1, 8]>
  %v = mem.load(%x, %r) : tile<f32[1, 8]>
  %s = reduce.sum(%v) {axis = 0} : tile<f32[8]>
  %m = reduce.max(%s) {axis = 0} : f32
  %n = reduce.min(%v) {axis = 0} : tile<f32[8]>
  %l = reduce.max(%v) {axis = 1} : tile<f32[1]>
  %b = tile.broadcast(%m) {shape = [8]} : tile<f32[8]>
  %c = arith.add(%n, %b) : tile<f32[8]>
  mem.store(%out, %a, %c)
  %z = tile.arange() {size = 1} : tile<index[1]>
  mem.store(%out, %z, %l)
}
// CHECK: %2 = mem.load(%x, %1) : tile<f32[1, 8]>
// CHECK-NEXT: %3 = tile.reshape(%2) {shape = [8]} : tile<f32[8]>
// CHECK-NEXT: %4 = reduce.max(%3) {axis = 0} : f32
// CHECK-NEXT: %5 = reduce.max(%2) {axis = 1} : tile<f32[1]>
// CHECK-NEXT: %6 = tile.broadcast(%4) {shape = [8]} : tile<f32[8]>
// CHECK-NEXT: %7 = arith.add(%3, %6) : tile<f32[8]>
