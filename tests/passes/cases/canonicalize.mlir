// Sorting or scanning one element along the axis leaves it as it is.
// RUN: ssa.canonicalize
kernel @single(%x: buffer<i32>) {
  %r = tile.arange() {size = 1} : tile<index[1]>
  %v = mem.load(%x, %r) : tile<i32[1]>
  %s = tile.sort(%v) {axis = 0, descending = false} : tile<i32[1]>
  %c = scan.sum(%s) {axis = 0, reverse = true} : tile<i32[1]>
  mem.store(%x, %r, %c)
}
// CHECK: %1 = mem.load(%x, %0) : tile<i32[1]>
// CHECK-NEXT: mem.store(%x, %0, %1)
