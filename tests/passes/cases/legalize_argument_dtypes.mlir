// A bool buffer the target cannot take is a byte buffer: loads compare with 0, stores cast, and
// a masked load's `other` becomes its byte; the kernel records the caller's type.
// RUN: ssa.legalize_argument_dtypes
// TARGET: buffer_dtypes=i8,f32
kernel @bools(%m: buffer<i1>, %x: buffer<f32>) {
  %r = tile.arange() {size = 4} : tile<index[4]>
  %c = tile.broadcast(%r) {shape = [4]} : tile<index[4]>
  %t = arith.cmp(%r, %c) {pred = "eq"} : tile<i1[4]>
  %b = mem.load(%m, %r, %t) {other = true} : tile<i1[4]>
  mem.store(%m, %r, %b)
}
// CHECK: kernel @bools(%m: buffer<i8>, %x: buffer<f32>) attributes {buffer_views = [["m", "i1"]]}
// CHECK: %3 = mem.load(%m, %0, %2) {other = 1} : tile<i8[4]>
// CHECK-NEXT: %4 = arith.constant() {value = 0} : tile<i8[4]>
// CHECK-NEXT: %5 = arith.cmp(%3, %4) {pred = "ne"} : tile<i1[4]>
// CHECK-NEXT: %6 = arith.cast(%5) {dtype = "i8"} : tile<i8[4]>
// CHECK-NEXT: mem.store(%m, %0, %6)
// -----
// Other types go bit for bit to the first same-width type the target takes.
// RUN: ssa.legalize_argument_dtypes
// TARGET: buffer_dtypes=i16,i32
kernel @bits(%h: buffer<bf16>, %u: buffer<u32>) {
  %zero = arith.constant() {value = 0} : index
  %a = mem.load(%h, %zero) : bf16
  %b = mem.load(%u, %zero) : u32
  mem.store(%h, %zero, %a)
  mem.store(%u, %zero, %b)
}
// CHECK: kernel @bits(%h: buffer<i16>, %u: buffer<i32>) attributes {buffer_views = [["h", "bf16"], ["u", "u32"]]}
// CHECK: %2 = arith.bitcast(%1) {dtype = "bf16"} : bf16
// CHECK: %4 = arith.bitcast(%3) {dtype = "u32"} : u32
// CHECK-NEXT: %5 = arith.bitcast(%2) {dtype = "i16"} : i16
// CHECK-NEXT: mem.store(%h, %0, %5)
// -----
// Nothing as wide: an error naming the argument and the target.
// RUN: ssa.legalize_argument_dtypes
// TARGET: buffer_dtypes=f32
// ERROR: ssa.legalize_argument_dtypes: target stand-in takes no buffer<i1> stand-in for argument %m (it takes f32); convert the argument
kernel @none(%m: buffer<i1>) {
}
// -----
// A target that takes every type (no buffer_dtypes) is left alone.
// RUN: ssa.legalize_argument_dtypes
kernel @all(%m: buffer<i1>) {
}
// CHECK: kernel @all(%m: buffer<i1>) {
// -----
// A scalar the target cannot take arrives as the narrowest type it takes that holds its values,
// and is cast back once at the kernel's entry.
// RUN: ssa.legalize_argument_dtypes
// TARGET: scalar_dtypes=i8,i32,i64,f32,f64
kernel @scalars(%x: buffer<f16>, %h: f16, %u: u16, %b: i8) {
  %zero = arith.constant() {value = 0} : index
  %s = arith.cast(%u) {dtype = "f16"} : f16
  %v = arith.add(%h, %s) : f16
  mem.store(%x, %zero, %v)
}
// CHECK: kernel @scalars(%x: buffer<f16>, %h: f32, %u: i32, %b: i8) {
// CHECK-NEXT: %0 = arith.cast(%u) {dtype = "u16"} : u16
// CHECK-NEXT: %1 = arith.cast(%h) {dtype = "f16"} : f16
// CHECK-NEXT: %2 = arith.constant() {value = 0} : index
// CHECK-NEXT: %3 = arith.cast(%0) {dtype = "f16"} : f16
// CHECK-NEXT: %4 = arith.add(%1, %3) : f16
