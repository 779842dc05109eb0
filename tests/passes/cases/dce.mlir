// Dead pure ops and dead loads go, recursively; stores stay. A loop-carried value whose result is
// unused goes when its block argument is only passed on by the yield (or not read at all), and a
// loop left without effects or results goes entirely.
// RUN: ssa.canonicalize
kernel @dce(%x: buffer<f32>, %n: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %f = arith.constant() {value = 0.0} : f32
  %a = tile.arange() {size = 4} : tile<index[4]>
  %v = mem.load(%x, %a) : tile<f32[4]>
  %unused = math.exp(%v) : tile<f32[4]>
  %unused2 = arith.add(%unused, %unused) : tile<f32[4]>
  %sum, %through, %ignored = scf.for(%zero, %n, %one, %f, %f, %f) : f32, f32, f32 {
  ^(%i: index, %s: f32, %t: f32, %g: f32):
    %fi = arith.cast(%i) {dtype = "f32"} : f32
    %s2 = arith.add(%s, %fi) : f32
    %g2 = arith.mul(%fi, %fi) : f32
    scf.yield(%s2, %t, %g2)
  }
  %sb = tile.broadcast(%sum) {shape = [4]} : tile<f32[4]>
  mem.store(%x, %a, %sb)
  %idle = scf.for(%zero, %n, %one, %f) : f32 {
  ^(%j: index, %h: f32):
    %h2 = arith.add(%h, %h) : f32
    scf.yield(%h2)
  }
}
// CHECK: %3 = tile.arange() {size = 4} : tile<index[4]>
// CHECK-NEXT: %4 = scf.for(%0, %n, %1, %2) : f32 {
// CHECK-NEXT: ^(%5: index, %6: f32):
// CHECK-NEXT: %7 = arith.cast(%5) {dtype = "f32"} : f32
// CHECK-NEXT: %8 = arith.add(%6, %7) : f32
// CHECK-NEXT: scf.yield(%8)
// CHECK-NEXT: }
// CHECK-NEXT: %9 = tile.broadcast(%4) {shape = [4]} : tile<f32[4]>
// CHECK-NEXT: mem.store(%x, %3, %9)
// CHECK-NEXT: }
// -----
// A loop-carried value read by the body stays, even if its result is unused.
// RUN: ssa.canonicalize
kernel @live_carried(%x: buffer<f32>, %n: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %f = arith.constant() {value = 0.0} : tile<f32[4]>
  %a = tile.arange() {size = 4} : tile<index[4]>
  %acc = scf.for(%zero, %n, %one, %f) : tile<f32[4]> {
  ^(%i: index, %s: tile<f32[4]>):
    mem.store(%x, %a, %s)
    %v = mem.load(%x, %a) : tile<f32[4]>
    scf.yield(%v)
  }
}
// CHECK: %4 = scf.for(%0, %n, %1, %2) : tile<f32[4]> {
// -----
// A loop its constant bounds run zero times goes with its stores; its results are its initial
// values. One whose step is not a constant, or whose bounds are not, stays.
// RUN: ssa.canonicalize
kernel @zero_trips(%x: buffer<f32>, %n: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %f = arith.constant() {value = 2.0} : f32
  %never = scf.for(%one, %one, %one, %f) : f32 {
  ^(%i: index, %s: f32):
    mem.store(%x, %i, %s)
    %s2 = arith.add(%s, %s) : f32
    scf.yield(%s2)
  }
  mem.store(%x, %zero, %never)
  scf.for(%one, %zero, %n) {
  ^(%j: index):
    mem.store(%x, %j, %f)
    scf.yield()
  }
  scf.for(%one, %n, %one) {
  ^(%k: index):
    mem.store(%x, %k, %f)
    scf.yield()
  }
}
// CHECK: %2 = arith.constant() {value = 2.0} : f32
// CHECK-NEXT: mem.store(%x, %0, %2)
// CHECK-NEXT: scf.for(%1, %0, %n) {
// CHECK: scf.for(%1, %n, %1) {
