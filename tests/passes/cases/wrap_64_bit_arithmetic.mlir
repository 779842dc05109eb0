// A product of two zero-extended 32-bit words is below 2^64: proven, it stays one multiply.
// RUN: ssa.wrap_64_bit_arithmetic
// TARGET: overflow_free_64=i64,u64
kernel @proven(%x: buffer<u32>, %y: buffer<u64>) {
  %zero = arith.constant() {value = 0} : index
  %a = mem.load(%x, %zero) : u32
  %w = arith.cast(%a) {dtype = "u64"} : u64
  %p = arith.mul(%w, %w) : u64
  %k = arith.constant() {value = 32} : u64
  %h = arith.shr(%p, %k) : u64
  %s = arith.add(%h, %w) : u64
  mem.store(%y, %zero, %s)
}
// CHECK: %3 = arith.mul(%2, %2) : u64
// CHECK-NEXT: %4 = arith.constant() {value = 32} : u64
// CHECK-NEXT: %5 = arith.shr(%3, %4) : u64
// CHECK-NEXT: %6 = arith.add(%5, %2) : u64
// CHECK-NEXT: mem.store(%y, %0, %6)
// -----
// A product of unknown words may wrap: it is rebuilt on 32-bit halves, none of whose ops overflow.
// RUN: ssa.wrap_64_bit_arithmetic
// TARGET: overflow_free_64=i64,u64
kernel @unknown(%y: buffer<u64>) {
  %zero = arith.constant() {value = 0} : index
  %a = mem.load(%y, %zero) : u64
  %p = arith.mul(%a, %a) : u64
  mem.store(%y, %zero, %p)
}
// CHECK: %2 = arith.constant() {value = 4294967295} : u64
// CHECK-NEXT: %3 = arith.and(%1, %2) : u64
// CHECK-NEXT: %4 = arith.constant() {value = 32} : u64
// CHECK-NEXT: %5 = arith.shr(%1, %4) : u64
// CHECK: %8 = arith.mul(%3, %6) : u64
// CHECK-NEXT: %9 = arith.mul(%3, %7) : u64
// CHECK-NEXT: %10 = arith.mul(%5, %6) : u64
// CHECK-NEXT: %11 = arith.shr(%8, %4) : u64
// CHECK-NEXT: %12 = arith.and(%9, %2) : u64
// CHECK-NEXT: %13 = arith.add(%11, %12) : u64
// CHECK-NEXT: %14 = arith.and(%10, %2) : u64
// CHECK-NEXT: %15 = arith.add(%13, %14) : u64
// CHECK-NEXT: %16 = arith.and(%15, %2) : u64
// CHECK-NEXT: %17 = arith.shl(%16, %4) : u64
// CHECK-NEXT: %18 = arith.and(%8, %2) : u64
// CHECK-NEXT: %19 = arith.or(%17, %18) : u64
// CHECK-NEXT: mem.store(%y, %0, %19)
// -----
// Signed i64 goes through its u64 bits; a constant operand's bits are a constant (`0 - x`).
// RUN: ssa.wrap_64_bit_arithmetic
// TARGET: overflow_free_64=i64,u64
kernel @signed(%y: buffer<i64>) {
  %zero = arith.constant() {value = 0} : index
  %a = mem.load(%y, %zero) : i64
  %c = arith.constant() {value = 0} : i64
  %n = arith.sub(%c, %a) : i64
  mem.store(%y, %zero, %n)
}
// CHECK: %3 = arith.constant() {value = 0} : u64
// CHECK-NEXT: %4 = arith.bitcast(%1) {dtype = "u64"} : u64
// CHECK-NEXT: %5 = arith.constant() {value = 18446744073709551615} : u64
// CHECK-NEXT: %6 = arith.xor(%4, %5) : u64
// CHECK: arith.or
// CHECK-NEXT: arith.bitcast
// -----
// A target whose u64 arithmetic wraps (only i64 in `overflow_free_64`) keeps u64 ops.
// TARGET: overflow_free_64=i64
// RUN: ssa.wrap_64_bit_arithmetic
kernel @modular(%y: buffer<u64>) {
  %zero = arith.constant() {value = 0} : index
  %a = mem.load(%y, %zero) : u64
  %p = arith.mul(%a, %a) : u64
  mem.store(%y, %zero, %p)
}
// CHECK: %2 = arith.mul(%1, %1) : u64
// CHECK-NEXT: mem.store(%y, %0, %2)
