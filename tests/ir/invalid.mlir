// Each section is IR the parser or the verifier must reject, with the expected error next to it.
// expected-error: 'arith.frobnicate' is not a registered op
kernel @k(%a: f32) {
  %0 = arith.frobnicate(%a) : f32
}
// -----
// expected-error: cannot read '$'
kernel @k(%a: f32) {
  %0 = arith.neg(%a) : f32 $
}
// -----
// expected-error: %9 is used before it is defined
kernel @k(%a: f32) {
  %0 = arith.add(%a, %9) : f32
}
// -----
// expected-error: %0 is defined twice
kernel @k(%a: f32) {
  %0 = arith.neg(%a) : f32
  %0 = arith.neg(%a) : f32
}
// -----
// expected-error: %x is defined twice
kernel @k(%x: f32, %x: f32) {
}
// -----
// expected-error: unknown dtype 'q8'
kernel @k(%a: tile<q8[4]>) {
}
// -----
// expected-error: (arith.add) in @k: takes 2..2 operands
kernel @k(%a: f32) {
  %0 = arith.add(%a) : f32
}
// -----
// expected-error: (tile.arange) in @k: attributes: missing ['size'], unknown []
kernel @k() {
  %0 = tile.arange() : tile<index[4]>
}
// -----
// expected-error: (arith.add) in @k: attributes: missing [], unknown ['fast']
kernel @k(%a: f32) {
  %0 = arith.add(%a, %a) {fast = true} : f32
}
// -----
// expected-error: op #1 (arith.add) in @k: result types ['f16'] != ['f32']
kernel @k(%a: f32) {
  %0 = arith.add(%a, %a) : f16
}
// -----
// expected-error: (arith.add) in @k: operands must have one type, got f32, i32
kernel @k(%a: f32, %b: i32) {
  %0 = arith.add(%a, %b) : f32
}
// -----
// expected-error: (math.exp) in @k: expects floating-point operands, got i32
kernel @k(%a: i32) {
  %0 = math.exp(%a) : i32
}
// -----
// expected-error: (arith.cmp) in @k: unknown predicate 'lq'
kernel @k(%a: f32) {
  %0 = arith.cmp(%a, %a) {pred = "lq"} : i1
}
// -----
// expected-error: (linalg.dot) in @k: expects [M, K] x [K, N] tiles, got tile<f32[4, 8]>, tile<f32[4, 8]>
kernel @k(%a: tile<f32[4, 8]>) {
  %0 = linalg.dot(%a, %a) {dtype = "f32"} : tile<f32[4, 8]>
}
// -----
// expected-error: precision must be one of ieee, tf32, got 'bf16x3'
kernel @k(%a: tile<f32[4, 4]>) {
  %0 = linalg.dot(%a, %a) {dtype = "f32", precision = "bf16x3"} : tile<f32[4, 4]>
}
// -----
// expected-error: precision tf32 is for f32 operands, got f16 and f16
kernel @k(%a: tile<f16[4, 4]>) {
  %0 = linalg.dot(%a, %a) {dtype = "f32", precision = "tf32"} : tile<f32[4, 4]>
}
// -----
// expected-error: (tile.broadcast) in @k: cannot broadcast tile<f32[4]> to [8]
kernel @k(%a: tile<f32[4]>) {
  %0 = tile.broadcast(%a) {shape = [8]} : tile<f32[8]>
}
// -----
// expected-error: (tile.expand_dims) in @k: axis 2 is out of range for tile<f32[4]>
kernel @k(%a: tile<f32[4]>) {
  %0 = tile.expand_dims(%a) {axis = 2} : tile<f32[4, 1]>
}
// -----
// expected-error: (tile.trans) in @k: perm [0, 0] does not permute the dims of tile<f32[4, 4]>
kernel @k(%a: tile<f32[4, 4]>) {
  %0 = tile.trans(%a) {perm = [0, 0]} : tile<f32[4, 4]>
}
// -----
// expected-error: (reduce.sum) in @k: axis 1 is out of range for tile<f32[4]>
kernel @k(%a: tile<f32[4]>) {
  %0 = reduce.sum(%a) {axis = 1} : f32
}
// -----
// expected-error: (mem.load) in @k: mask tile<i1[8]> must be i1 with the offsets' shape
kernel @k(%x: buffer<f32>, %o: tile<index[4]>, %m: tile<i1[8]>) {
  %0 = mem.load(%x, %o, %m) : tile<f32[4]>
}
// -----
// expected-error: (mem.store) in @k: value tile<f16[4]> must match buffer<f32> and the offsets' shape
kernel @k(%x: buffer<f32>, %o: tile<index[4]>, %v: tile<f16[4]>) {
  mem.store(%x, %o, %v)
}
// -----
// expected-error: (mem.load) in @k: expects (buffer, index offsets[, i1 mask]), got buffer<f32>, i32
kernel @k(%x: buffer<f32>, %o: i32) {
  %0 = mem.load(%x, %o) : f32
}
// -----
// expected-error: (scf.yield) in @k: scf.yield must end a region's block
kernel @k() {
  scf.yield()
}
// -----
// expected-error: a region's block must end with scf.yield
kernel @k(%n: index) {
  scf.for(%n, %n, %n) {
  ^(%0: index):
    %1 = arith.add(%0, %0) : index
  }
}
// -----
// expected-error: (scf.for) in @k: lower bound, upper bound and step must be index scalars
kernel @k(%n: i32) {
  scf.for(%n, %n, %n) {
  ^(%0: i32):
    scf.yield()
  }
}
// -----
// expected-error: (scf.for) in @k: body arguments must be (index, *loop-carried types)
kernel @k(%n: index, %f: f32) {
  %0 = scf.for(%n, %n, %n, %f) : f32 {
  ^(%1: index):
    scf.yield(%f)
  }
}
// -----
// expected-error: (scf.for) in @k: scf.yield types must match the op's result types
kernel @k(%n: index, %f: f32) {
  %0 = scf.for(%n, %n, %n, %f) : f32 {
  ^(%1: index, %2: f32):
    scf.yield(%1)
  }
}
// -----
// expected-error: (scf.if) in @k: condition must be an i1 scalar
kernel @k(%c: tile<i1[4]>) {
  scf.if(%c) {
  ^():
    scf.yield()
  } {
  ^():
    scf.yield()
  }
}
// -----
// expected-error: (scf.if) in @k: has 1 regions, expected 2
kernel @k(%c: i1) {
  scf.if(%c) {
  ^():
    scf.yield()
  }
}
// -----
// expected-error: (scf.if) in @k: branches take no arguments
kernel @k(%c: i1) {
  scf.if(%c) {
  ^(%0: index):
    scf.yield()
  } {
  ^():
    scf.yield()
  }
}
// -----
// expected-error: (arith.constant) in @k: has 2 results, expected 1
kernel @k() {
  %0, %1 = arith.constant() {value = 1} : f32, f32
}
// -----
// expected-error: op #4 (arith.neg) in @k: uses a value that is not defined before it in an enclosing block
kernel @k(%n: index, %f: f32) {
  scf.for(%n, %n, %n) {
  ^(%0: index):
    %1 = arith.neg(%f) : f32
    scf.yield()
  }
  %2 = arith.neg(%1) : f32
}
// -----
// expected-error: bitcast from f32 to i16: both need the same fixed width in bits
kernel @k(%a: f32) {
  %0 = arith.bitcast(%a) {dtype = "i16"} : i16
}
// -----
// expected-error: bitcast from index to i64: both need the same fixed width in bits
kernel @k(%a: index) {
  %0 = arith.bitcast(%a) {dtype = "i64"} : i64
}
// -----
// expected-error: expects integer operands, got f32
kernel @k(%a: f32) {
  %0 = arith.shl(%a, %a) : f32
}
// -----
// expected-error: expects floating-point operands, got i32
kernel @k(%a: i32) {
  %0 = math.isnan(%a) : i1
}
// -----
// expected-error: tile.sort sorts integers, got tile<f32[8]>; sort a float through its ordered bits
kernel @k(%a: tile<f32[8]>) {
  %0 = tile.sort(%a) {axis = 0, descending = false} : tile<f32[8]>
}
// -----
// expected-error: tile<i32[4, 2]> must match tile<f32[4, 8]> except along axis 0
kernel @k(%a: tile<f32[4, 8]>, %i: tile<i32[4, 2]>) {
  %0 = tile.gather(%a, %i) {axis = 0} : tile<f32[4, 2]>
}
// -----
// expected-error: axis 2 is out of range for tile<i32[4, 8]>
kernel @k(%a: tile<i32[4, 8]>) {
  %0 = scan.sum(%a) {axis = 2, reverse = false} : tile<i32[4, 8]>
}
// -----
// expected-error: unknown atomic kind 'swap'; kinds: add, max, min
kernel @k(%h: buffer<i32>, %i: index, %v: i32) {
  %0 = mem.atomic(%h, %i, %v) {kind = "swap"} : i32
}
// -----
// expected-error: atomic cas takes 16-, 32- or 64-bit integers, got f32
kernel @k(%h: buffer<f32>, %i: index, %v: f32) {
  %0 = mem.atomic(%h, %i, %v, %v) {kind = "cas"} : f32
}
// -----
// expected-error: atomic cas takes (buffer, offsets, value, compare), the two alike
kernel @k(%h: buffer<i32>, %i: index, %v: i32) {
  %0 = mem.atomic(%h, %i, %v) {kind = "cas"} : i32
}
// -----
// expected-error: arrays of [256, 256, 512] elements do not hold [32, 16] x [16, 16]
kernel @k() {
  %0 = mem.alloc() {dtype = "f16", size = 256} : array<f16[256]>
  %1 = mem.alloc() {dtype = "f32", size = 512} : array<f32[512]>
  mem.dot(%0, %0, %1) {accumulate = false, k = 16, m = 32, n = 16}
}
// -----
// expected-error: operands must share a dtype
kernel @k() {
  %0 = mem.alloc() {dtype = "f16", size = 256} : array<f16[256]>
  %1 = mem.alloc() {dtype = "bf16", size = 256} : array<bf16[256]>
  %2 = mem.alloc() {dtype = "f32", size = 256} : array<f32[256]>
  mem.dot(%0, %1, %2) {accumulate = false, k = 16, m = 16, n = 16}
}
// -----
// expected-error: accumulate must be true or false, got 1
kernel @k() {
  %0 = mem.alloc() {dtype = "f16", size = 256} : array<f16[256]>
  %1 = mem.alloc() {dtype = "f32", size = 256} : array<f32[256]>
  mem.dot(%0, %0, %1) {accumulate = 1, k = 16, m = 16, n = 16}
}
// -----
// expected-error: transpose_b must be true or false, got 1
kernel @k() {
  %0 = mem.alloc() {dtype = "f16", size = 256} : array<f16[256]>
  %1 = mem.alloc() {dtype = "f32", size = 256} : array<f32[256]>
  mem.dot(%0, %0, %1) {accumulate = false, k = 16, m = 16, n = 16, transpose_b = 1}
}
// -----
// expected-error: expects two arrays of one type
kernel @k() {
  %0 = mem.alloc() {dtype = "f32", size = 256} : array<f32[256]>
  %1 = mem.alloc() {dtype = "f32", size = 128} : array<f32[128]>
  mem.copy(%0, %1) {shape = [16, 16]}
}
// -----
// expected-error: shape [16, 8] does not hold the 256 elements
kernel @k() {
  %0 = mem.alloc() {dtype = "f32", size = 256} : array<f32[256]>
  mem.copy(%0, %0) {shape = [16, 8]}
}
// -----
// expected-error: kind must be one of sum, max, min, got 'prod'
kernel @k() {
  %0 = mem.alloc() {dtype = "f32", size = 64} : array<f32[64]>
  %1 = mem.alloc() {dtype = "f32", size = 8} : array<f32[8]>
  mem.reduce(%0, %1) {kind = "prod", shape = [1, 8, 8]}
}
// -----
// expected-error: arrays of [64, 4] elements do not hold [1, 8, 8] and its result
kernel @k() {
  %0 = mem.alloc() {dtype = "f32", size = 64} : array<f32[64]>
  %1 = mem.alloc() {dtype = "f32", size = 4} : array<f32[4]>
  mem.reduce(%0, %1) {kind = "sum", shape = [1, 8, 8]}
}
// -----
// expected-error: expects two arrays of one dtype
kernel @k() {
  %0 = mem.alloc() {dtype = "f32", size = 64} : array<f32[64]>
  %1 = mem.alloc() {dtype = "i32", size = 8} : array<i32[8]>
  mem.reduce(%0, %1) {kind = "sum", shape = [8, 8, 1]}
}
// -----
// expected-error: unknown dtype
kernel @k() {
  %0 = mem.alloc() {dtype = "f32", operand_dtype = "half", scope = "fragment", size = 16} : array<f32[16]>
}
// -----
// expected-error: takes 3 index scalars (base, size, stride) per dim, at least 6, got index, index, index
kernel @k(%a: buffer<f16>, %n: index) {
  %0 = mem.alloc() {dtype = "f16", scope = "shared", size = 256} : array<f16[256]>
  mem.copy_box_in(%a, %n, %n, %n, %0) {shape = [16, 16]}
}
// -----
// expected-error: does not hold a [16, 16] box of buffer<f32>
kernel @k(%a: buffer<f32>, %n: index) {
  %0 = mem.alloc() {dtype = "f16", scope = "shared", size = 256} : array<f16[256]>
  mem.copy_box_out(%0, %a, %n, %n, %n, %n, %n, %n) {shape = [16, 16]}
}
// -----
// expected-error: stages must be a positive int, got 0
kernel @k(%n: index) {
  scf.for(%n, %n, %n) {stages = 0} {
  ^(%i: index):
    scf.yield()
  }
}
// -----
// expected-error: lanes must be a power of two above 1, got 3
kernel @k(%a: buffer<f32>, %n: index) {
  %0 = mem.alloc() {dtype = "f32", size = 3} : array<f32[3]>
  mem.load_lanes(%a, %n, %0) {lanes = 3}
}
// -----
// expected-error: must hold the 4 lanes of buffer<f32>
kernel @k(%a: buffer<f32>, %n: index) {
  %0 = mem.alloc() {dtype = "f32", size = 8} : array<f32[8]>
  mem.store_lanes(%0, %a, %n) {lanes = 4}
}
// -----
// expected-error: lanes must be a positive int, got 0
kernel @k(%n: index) {
  scf.for(%n, %n, %n) {lanes = 0} {
  ^(%i: index):
    scf.yield()
  }
}
// -----
// expected-error: shape must list two or more positive ints, got [32]
kernel @k() {
  %0 = arith.constant() {value = 32} : index
  scf.parallel(%0) {shape = [32]} {
  ^(%i: index):
    scf.yield()
  }
}
// -----
// expected-error: the extent of a loop with a shape must be the constant product
kernel @k() {
  %0 = arith.constant() {value = 32} : index
  scf.parallel(%0) {shape = [4, 4]} {
  ^(%i: index):
    scf.yield()
  }
}
// -----
// expected-error: the extent of a loop with a shape must be the constant product
kernel @k(%n: index) {
  scf.parallel(%n) {shape = [4, 8]} {
  ^(%i: index):
    scf.yield()
  }
}
// -----
// expected-error: expects (array, index slot), got array<f32[256]>, f32
kernel @k(%s: f32) {
  %0 = mem.alloc() {dtype = "f32", size = 256} : array<f32[256]>
  %1 = mem.owned_position(%0, %s) : index
}
// -----
// expected-error: expects an array, got f32
kernel @k(%s: f32) {
  %0 = mem.owned_slots(%s) : index
}
// -----
// expected-error: (scf.for) in @k: the step must be positive
kernel @k(%x: buffer<f32>) {
  %0 = arith.constant() {value = 4} : index
  %1 = arith.constant() {value = 0} : index
  %2 = arith.constant() {value = -1} : index
  scf.for(%0, %1, %2) {
  ^(%i: index):
    scf.yield()
  }
}
// -----
// expected-error: (arith.xor) in @k: expects integer or boolean operands, got f32
kernel @k(%a: f32) {
  %0 = arith.xor(%a, %a) : f32
}
