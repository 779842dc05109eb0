// Every load and store gets the target's spelling of the global scope.
// RUN: ssa.lower_memory_scopes
kernel @scopes(%x: buffer<f32>, %n: index) {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  scf.for(%zero, %n, %one) {
  ^(%i: index):
    %v = mem.load(%x, %i) : f32
    mem.store(%x, %i, %v)
    scf.yield()
  }
}
// CHECK: %3 = mem.load(%x, %2) {scope = "global"} : f32
// CHECK-NEXT: mem.store(%x, %2, %3) {scope = "global"}
