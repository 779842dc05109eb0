// fp8 moved, not computed: the buffers are bytes, the load and the store move them unchanged,
// and the kernel records the caller's types for the launch's views.
// RUN: ssa.emulate_narrow_floats
kernel @copy(%x: buffer<f8e4m3fn>, %y: buffer<f8e4m3fn>) {
  %i = arith.constant() {value = 0} : index
  %v = mem.load(%x, %i) : f8e4m3fn
  mem.store(%y, %i, %v)
}
// CHECK: kernel @copy(%x: buffer<u8>, %y: buffer<u8>) attributes {buffer_views = [["x", "f8e4m3fn"], ["y", "f8e4m3fn"]]}
// CHECK-NEXT: %0 = arith.constant() {value = 0} : index
// CHECK-NEXT: %1 = mem.load(%x, %0) : u8
// CHECK-NEXT: mem.store(%y, %0, %1)
// -----
// Math on fp8 computes in f32: each operand decoded by integer ops, the product encoded back
// (round to nearest even: add just under half, plus the last kept bit), decoded for the cast.
// Constants and a masked load's `other` become their codes (1.5 is 0x3e in e5m2, 2.0 is 0x40).
// RUN: ssa.emulate_narrow_floats
kernel @scale(%x: buffer<f8e5m2>, %y: buffer<f32>) {
  %i = arith.constant() {value = 0} : index
  %v = mem.load(%x, %i) {other = 1.5} : f8e5m2
  %two = arith.constant() {value = 2.0} : f8e5m2
  %p = arith.mul(%v, %two) : f8e5m2
  %w = arith.cast(%p) {dtype = "f32"} : f32
  mem.store(%y, %i, %w)
}
// CHECK: kernel @scale(%x: buffer<u8>, %y: buffer<f32>) attributes {buffer_views = [["x", "f8e5m2"]]}
// CHECK-NOT: f8e5m2
// CHECK: %1 = mem.load(%x, %0) {other = 62} : u8
// CHECK-NEXT: %2 = arith.constant() {value = 64} : u8
// CHECK-NEXT: %3 = arith.cast(%1) {dtype = "u32"} : u32
// CHECK: %34 = arith.bitcast(%33) {dtype = "f32"} : f32
// CHECK: %66 = arith.bitcast(%65) {dtype = "f32"} : f32
// CHECK-NEXT: %67 = arith.mul(%34, %66) : f32
// CHECK-NEXT: %68 = arith.bitcast(%67) {dtype = "u32"} : u32
// CHECK: %124 = arith.cast(%123) {dtype = "u8"} : u8
// CHECK-NOT: f8e5m2
// CHECK: mem.store(%y, %0, %156)
// -----
// A target that computes with a format natively keeps it.
// RUN: ssa.emulate_narrow_floats
// TARGET: fp8_dtypes=f8e5m2
kernel @native(%x: buffer<f8e5m2>) {
  %i = arith.constant() {value = 0} : index
  %v = mem.load(%x, %i) : f8e5m2
  %p = arith.mul(%v, %v) : f8e5m2
  mem.store(%x, %i, %p)
}
// CHECK: kernel @native(%x: buffer<f8e5m2>) {
// CHECK: %2 = arith.mul(%1, %1) : f8e5m2
// -----
// An fp8 scalar argument would need the caller's number encoded: refused, with the fix.
// RUN: ssa.emulate_narrow_floats
// ERROR: ssa.emulate_narrow_floats: @scalar takes %s as a f8e4m3fn scalar, which this target holds as its bits; pass it as an f32 and convert it in the program
kernel @scalar(%x: buffer<f8e4m3fn>, %s: f8e4m3fn) {
  %i = arith.constant() {value = 0} : index
  mem.store(%x, %i, %s)
}
// -----
// bf16 where the target lists it stored-only: held as u16 words, its math in f32. Decoding
// shifts the bits up; encoding rounds to nearest even (0x7FFF plus the last kept bit, then >> 16)
// and keeps a NaN a NaN. The comparison of two bf16 values compares their f32 values.
// RUN: ssa.emulate_narrow_floats
// TARGET: stored_only_dtypes=bf16
kernel @larger(%x: buffer<bf16>, %y: buffer<bf16>) {
  %i = arith.constant() {value = 0} : index
  %a = mem.load(%x, %i) {other = -1.0} : bf16
  %b = mem.load(%y, %i) : bf16
  %c = arith.cmp(%a, %b) {pred = "lt"} : i1
  %s = arith.add(%a, %b) : bf16
  %m = select.where(%c, %b, %s) : bf16
  mem.store(%y, %i, %m)
}
// CHECK: kernel @larger(%x: buffer<u16>, %y: buffer<u16>) attributes {buffer_views = [["x", "bf16"], ["y", "bf16"]]}
// CHECK-NOT: bf16
// CHECK: %1 = mem.load(%x, %0) {other = 49024} : u16
// CHECK-NEXT: %2 = mem.load(%y, %0) : u16
// CHECK-NEXT: %3 = arith.cast(%1) {dtype = "u32"} : u32
// CHECK-NEXT: %4 = arith.constant() {value = 16} : u32
// CHECK-NEXT: %5 = arith.shl(%3, %4) : u32
// CHECK-NEXT: %6 = arith.bitcast(%5) {dtype = "f32"} : f32
// CHECK: arith.cmp(%6, %10) {pred = "lt"} : i1
// CHECK: %20 = arith.add(%15, %19) : f32
// CHECK-NEXT: %21 = arith.bitcast(%20) {dtype = "u32"} : u32
// CHECK: %31 = arith.add(%21, %26) : u32
// CHECK-NEXT: %32 = arith.add(%31, %30) : u32
// CHECK: %34 = arith.shr(%32, %33) : u32
// CHECK: %42 = arith.cmp(%40, %41) {pred = "gt"} : i1
// CHECK-NEXT: %43 = select.where(%42, %38, %34) : u32
// CHECK-NEXT: %44 = arith.cast(%43) {dtype = "u16"} : u16
// CHECK-NEXT: %45 = select.where(%11, %2, %44) : u16
// CHECK-NOT: bf16
