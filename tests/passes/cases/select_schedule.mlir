// Given values win; the others follow the default rule (largest power of two within the bounds, at
// most 64). Symbols in types, block arguments, arange sizes and broadcast shapes are all replaced,
// index.meta becomes a constant, and `meta` gives way to `schedule`, its reason and the names given.
// RUN: ssa.select_schedule{BLOCK_SIZE_1=8}
kernel @sched(%x: buffer<f32>, %n: index, %o: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024], ["BLOCK_SIZE_1", 4, 32], ["BLOCK_SIZE_2", 1, 24]]} {
  %zero = arith.constant() {value = 0} : index
  %one = arith.constant() {value = 1} : index
  %bs = index.meta() {name = "BLOCK_SIZE_0"} : index
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  %c = tile.arange() {size = "BLOCK_SIZE_1"} : tile<index[BLOCK_SIZE_1]>
  %r2 = tile.expand_dims(%r) {axis = 1} : tile<index[BLOCK_SIZE_0, 1]>
  %rb = tile.broadcast(%r2) {shape = ["BLOCK_SIZE_0", "BLOCK_SIZE_1"]} : tile<index[BLOCK_SIZE_0, BLOCK_SIZE_1]>
  %f = arith.constant() {value = 0.0} : tile<f32[BLOCK_SIZE_0, BLOCK_SIZE_1]>
  %acc = scf.for(%zero, %n, %bs, %f) : tile<f32[BLOCK_SIZE_0, BLOCK_SIZE_1]> {
  ^(%i: index, %a: tile<f32[BLOCK_SIZE_0, BLOCK_SIZE_1]>):
    %v = mem.load(%x, %rb) : tile<f32[BLOCK_SIZE_0, BLOCK_SIZE_1]>
    %s = arith.add(%a, %v) : tile<f32[BLOCK_SIZE_0, BLOCK_SIZE_1]>
    scf.yield(%s)
  }
  mem.store(%x, %rb, %acc)
  %t = tile.arange() {size = "BLOCK_SIZE_2"} : tile<index[BLOCK_SIZE_2]>
  mem.store(%o, %t, %t)
}
// CHECK: kernel @sched(%x: buffer<f32>, %n: index, %o: buffer<index>) attributes {schedule = [["BLOCK_SIZE_0", 64], ["BLOCK_SIZE_1", 8], ["BLOCK_SIZE_2", 16]], schedule_given = ["BLOCK_SIZE_1"], schedule_reason = "BLOCK_SIZE_0=64 (rule largest, bounds [1, 1024], cap 64); BLOCK_SIZE_1=8 (given); BLOCK_SIZE_2=16 (rule largest, bounds [1, 24], cap 64); static rule (nothing lent a tuner: kernels are timed on a GPU, or with autotune='measure')"} {
// CHECK: %2 = arith.constant() {value = 64} : index
// CHECK-NEXT: %3 = tile.arange() {size = 64} : tile<index[64]>
// CHECK-NEXT: %4 = tile.arange() {size = 8} : tile<index[8]>
// CHECK-NEXT: %5 = tile.expand_dims(%3) {axis = 1} : tile<index[64, 1]>
// CHECK-NEXT: %6 = tile.broadcast(%5) {shape = [64, 8]} : tile<index[64, 8]>
// CHECK-NEXT: %7 = arith.constant() {value = 0.0} : tile<f32[64, 8]>
// CHECK-NEXT: %8 = scf.for(%0, %n, %2, %7) : tile<f32[64, 8]> {
// CHECK-NEXT: ^(%9: index, %10: tile<f32[64, 8]>):
// CHECK: %13 = tile.arange() {size = 16} : tile<index[16]>
// CHECK-NOT: BLOCK_SIZE
// -----
// The `smallest` rule takes the smallest power of two at or above the lower bound; a dim of a
// linalg.dot the target runs natively is raised to the target's dot_min.
// RUN: ssa.select_schedule{rule=smallest}
// TARGET: dot_min=16
kernel @smallest(%x: buffer<f32>) attributes {meta = [["BLOCK_SIZE_0", 3, 64], ["BLOCK_SIZE_1", 1, 64]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  %a = tile.expand_dims(%r) {axis = 1} : tile<index[BLOCK_SIZE_0, 1]>
  %b = tile.broadcast(%a) {shape = ["BLOCK_SIZE_0", "BLOCK_SIZE_1"]} : tile<index[BLOCK_SIZE_0, BLOCK_SIZE_1]>
  %v = mem.load(%x, %b) : tile<f32[BLOCK_SIZE_0, BLOCK_SIZE_1]>
  %t = tile.trans(%v) {perm = [1, 0]} : tile<f32[BLOCK_SIZE_1, BLOCK_SIZE_0]>
  %d = linalg.dot(%t, %v) {dtype = "f32"} : tile<f32[BLOCK_SIZE_1, BLOCK_SIZE_1]>
  %r2 = tile.arange() {size = "BLOCK_SIZE_1"} : tile<index[BLOCK_SIZE_1]>
  %c = tile.expand_dims(%r2) {axis = 1} : tile<index[BLOCK_SIZE_1, 1]>
  %cb = tile.broadcast(%c) {shape = ["BLOCK_SIZE_1", "BLOCK_SIZE_1"]} : tile<index[BLOCK_SIZE_1, BLOCK_SIZE_1]>
  mem.store(%x, %cb, %d)
}
// CHECK: schedule = [["BLOCK_SIZE_0", 16], ["BLOCK_SIZE_1", 16]], schedule_reason = "BLOCK_SIZE_0=16 (rule smallest, bounds [3, 64], dot_min 16); BLOCK_SIZE_1=16 (rule smallest, bounds [1, 64], dot_min 16)
// -----
// Without the dot, the same rule gives 4 and 1.
// RUN: ssa.select_schedule{rule=smallest}
kernel @smallest(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 3, 64], ["BLOCK_SIZE_1", 1, 64]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  mem.store(%x, %r, %r)
  %r2 = tile.arange() {size = "BLOCK_SIZE_1"} : tile<index[BLOCK_SIZE_1]>
  mem.store(%x, %r2, %r2)
}
// CHECK: schedule = [["BLOCK_SIZE_0", 4], ["BLOCK_SIZE_1", 1]], schedule_reason = "BLOCK_SIZE_0=4 (rule smallest, bounds [3, 64]); BLOCK_SIZE_1=1 (rule smallest, bounds [1, 64])
// -----
// A given value outside the symbol's bounds is an error.
// RUN: ssa.select_schedule{BLOCK_SIZE_0=2048}
// ERROR: ssa.select_schedule: BLOCK_SIZE_0=2048 is outside [1, 1024]
kernel @out_of_bounds(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  mem.store(%x, %r, %r)
}
// -----
// A target whose tiles are powers of two refuses a given value that is not one, naming both
// neighbours.
// RUN: ssa.select_schedule{BLOCK_SIZE_0=48}
// TARGET: power_of_two_tiles=1
// ERROR: ssa.select_schedule: BLOCK_SIZE_0=48 sizes tiles, and stand-in tiles must be powers of two; give BLOCK_SIZE_0=32 or BLOCK_SIZE_0=64
kernel @not_a_power(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  mem.store(%x, %r, %r)
}
// -----
// Elsewhere the same value stands.
// RUN: ssa.select_schedule{BLOCK_SIZE_0=48}
// CHECK: schedule = [["BLOCK_SIZE_0", 48]]
// CHECK: tile.arange() {size = 48} : tile<index[48]>
kernel @not_a_power(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  mem.store(%x, %r, %r)
}
// -----
// A tile past the target's largest is refused, whatever sized it: here a block size times a
// fixed dim.
// RUN: ssa.select_schedule{BLOCK_SIZE_0=1024}
// TARGET: max_tile_elements=4096
// ERROR: ssa.select_schedule: tile.broadcast makes a tile<index[1024, 8]> of 8192 elements, past the target's 4096 (with BLOCK_SIZE_0=1024); choose smaller block sizes or tiles
kernel @too_large(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  %a = tile.expand_dims(%r) {axis = 1} : tile<index[BLOCK_SIZE_0, 1]>
  %b = tile.broadcast(%a) {shape = ["BLOCK_SIZE_0", 8]} : tile<index[BLOCK_SIZE_0, 8]>
  mem.store(%x, %b, %b)
}
// -----
// A value for a symbol the kernel does not have is an error that lists the kernel's symbols.
// RUN: ssa.select_schedule{BLOCK_SIZE_7=16}
// ERROR: BLOCK_SIZE_7 is not a meta symbol of @unknown; meta symbols: BLOCK_SIZE_0
kernel @unknown(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  mem.store(%x, %r, %r)
}
// -----
// A symbolic dim that `meta` does not list is left unbound: an error naming the op and the symbol.
// RUN: ssa.select_schedule
// ERROR: tile.arange keeps symbolic dims ['BLOCK_SIZE_9']
kernel @unlisted(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 1, 1024]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_9"} : tile<index[BLOCK_SIZE_9]>
  mem.store(%x, %r, %r)
}
// -----
// A lower bound above the cap wins over the cap; bounds without a power of two give the upper bound.
// RUN: ssa.select_schedule
kernel @bounds(%x: buffer<index>) attributes {meta = [["BLOCK_SIZE_0", 100, 1024], ["BLOCK_SIZE_1", 3, 3]]} {
  %r = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  mem.store(%x, %r, %r)
  %r2 = tile.arange() {size = "BLOCK_SIZE_1"} : tile<index[BLOCK_SIZE_1]>
  mem.store(%x, %r2, %r2)
}
// CHECK: schedule = [["BLOCK_SIZE_0", 128], ["BLOCK_SIZE_1", 3]]
// -----
// A kernel without meta symbols records an empty schedule.
// RUN: ssa.select_schedule
kernel @none(%x: buffer<index>) {
  %r = tile.arange() {size = 4} : tile<index[4]>
  mem.store(%x, %r, %r)
}
// CHECK: kernel @none(%x: buffer<index>) attributes {schedule = [], schedule_reason = "no meta symbols"} {
// -----
// RUN: ssa.select_schedule{rule=biggest}
// ERROR: ssa.select_schedule: unknown rule 'biggest'; rules: largest, smallest
kernel @none(%x: buffer<index>) {
}
