// Each section is in printed form: parsing and printing it gives the same text back.
kernel @add(%x: buffer<f32>, %y: buffer<f32>, %out: buffer<f32>, %n: index) attributes {grid = "cdiv(n, BLOCK_SIZE_0)", meta = [["BLOCK_SIZE_0", 1, none]]} {
  %0 = index.program_id() {axis = 0} : index
  %1 = index.meta() {name = "BLOCK_SIZE_0"} : index
  %2 = arith.mul(%0, %1) : index
  %3 = tile.arange() {size = "BLOCK_SIZE_0"} : tile<index[BLOCK_SIZE_0]>
  %4 = tile.broadcast(%2) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
  %5 = arith.add(%4, %3) : tile<index[BLOCK_SIZE_0]>
  %6 = tile.broadcast(%n) {shape = ["BLOCK_SIZE_0"]} : tile<index[BLOCK_SIZE_0]>
  %7 = arith.cmp(%5, %6) {pred = "lt"} : tile<i1[BLOCK_SIZE_0]>
  %8 = mem.load(%x, %5, %7) {other = 0.0} : tile<f32[BLOCK_SIZE_0]>
  %9 = mem.load(%y, %5, %7) {other = 0.0, scope = "global"} : tile<f32[BLOCK_SIZE_0]>
  %10 = arith.add(%8, %9) : tile<f32[BLOCK_SIZE_0]>
  mem.store(%out, %5, %10, %7) {scope = "global"}
}
// -----
kernel @loops(%x: buffer<f32>, %n: index, %flag: i1) attributes {escapes = "quote \" and \\ backslash", nested = [[1, -2], [3.5, -0.0], [true, false]], specials = [nan, inf, -inf, 1e-05]} {
  %0 = arith.constant() {value = 0} : index
  %1 = arith.constant() {value = 1} : index
  %2 = arith.constant() {value = -1.5} : tile<f32[4, 8]>
  %3, %4 = scf.for(%0, %n, %1, %2, %0) : tile<f32[4, 8]>, index {
  ^(%5: index, %6: tile<f32[4, 8]>, %7: index):
    %8 = scf.for(%0, %5, %1, %6) : tile<f32[4, 8]> {
    ^(%9: index, %10: tile<f32[4, 8]>):
      %11 = math.exp2(%10) : tile<f32[4, 8]>
      scf.yield(%11)
    }
    %12 = arith.add(%7, %5) : index
    scf.yield(%8, %12)
  }
  %13 = scf.if(%flag) : tile<f32[4, 8]> {
  ^():
    %14 = tile.trans(%3) {perm = [1, 0]} : tile<f32[8, 4]>
    %15 = linalg.dot(%3, %14) {dtype = "f32", precision = "tf32"} : tile<f32[4, 4]>
    %16 = reduce.max(%15) {axis = 1} : tile<f32[4]>
    %17 = tile.expand_dims(%16) {axis = 1} : tile<f32[4, 1]>
    %18 = tile.broadcast(%17) {shape = [4, 8]} : tile<f32[4, 8]>
    scf.yield(%18)
  } {
  ^():
    scf.yield(%3)
  }
  scf.for(%0, %4, %1) {
  ^(%19: index):
    %20 = tile.arange() {size = 8} : tile<index[8]>
    %21 = tile.expand_dims(%20) {axis = 0} : tile<index[1, 8]>
    %22 = tile.broadcast(%21) {shape = [4, 8]} : tile<index[4, 8]>
    mem.store(%x, %22, %13)
    scf.yield()
  }
}
// -----
kernel @empty() {
}
// -----
kernel @bits(%x: buffer<f32>, %y: buffer<u32>) {
  %0 = tile.arange() {size = 16} : tile<index[16]>
  %1 = mem.load(%x, %0) : tile<f32[16]>
  %2 = arith.bitcast(%1) {dtype = "u32"} : tile<u32[16]>
  %3 = arith.constant() {value = 31} : tile<u32[16]>
  %4 = arith.shr(%2, %3) : tile<u32[16]>
  %5 = arith.shl(%4, %3) : tile<u32[16]>
  %6 = math.isnan(%1) : tile<i1[16]>
  %7 = math.floor(%1) : tile<f32[16]>
  %8 = math.tanh(%7) : tile<f32[16]>
  %9 = arith.bitcast(%8) {dtype = "i32"} : tile<i32[16]>
  mem.store(%y, %0, %5, %6)
}
// -----
kernel @along(%x: buffer<i64>) {
  %0 = tile.arange() {size = 8} : tile<index[8]>
  %1 = mem.load(%x, %0) : tile<i64[8]>
  %2 = tile.sort(%1) {axis = 0, descending = true} : tile<i64[8]>
  %3 = scan.sum(%2) {axis = 0, reverse = false} : tile<i64[8]>
  %4 = tile.gather(%3, %0) {axis = 0} : tile<i64[8]>
  mem.store(%x, %0, %4)
}
// -----
kernel @counts(%h: buffer<i32>, %x: buffer<i32>) {
  %0 = tile.arange() {size = 8} : tile<index[8]>
  %1 = mem.load(%x, %0) : tile<i32[8]>
  %2 = arith.cast(%1) {dtype = "index"} : tile<index[8]>
  %3 = arith.constant() {value = 1} : tile<i32[8]>
  %4 = mem.atomic(%h, %2, %3) {kind = "add"} : tile<i32[8]>
  mem.store(%x, %0, %4)
}
// -----
kernel @block_dot(%x: buffer<f32>) {
  %0 = mem.alloc() {dtype = "f16", scope = "shared", size = 512} : array<f16[512]>
  %1 = mem.alloc() {dtype = "f16", scope = "shared", size = 256} : array<f16[256]>
  %2 = mem.alloc() {dtype = "f32", scope = "shared", size = 512} : array<f32[512]>
  %3 = mem.alloc() {dtype = "f32", operand_dtype = "f16", scope = "fragment", shape = [32, 16], size = 512} : array<f32[512]>
  mem.dot(%0, %1, %3) {accumulate = false, k = 16, m = 32, n = 16}
  mem.dot(%0, %1, %3) {accumulate = true, k = 16, m = 32, n = 16}
  mem.dot(%0, %1, %3) {accumulate = true, k = 16, m = 32, n = 16, transpose_b = true}
  mem.copy(%3, %2) {shape = [32, 16]}
  %4 = mem.alloc() {dtype = "f32", scope = "shared", size = 16} : array<f32[16]>
  mem.reduce(%2, %4) {kind = "max", shape = [1, 32, 16]}
}
// -----
kernel @box_copies(%a: buffer<f16>, %n: index, %s: index, %c: buffer<f32>) {
  %0 = mem.alloc() {dtype = "f16", scope = "shared", shape = [16, 16], size = 256} : array<f16[256]>
  %1 = mem.alloc() {dtype = "f32", operand_dtype = "f16", scope = "fragment", shape = [16, 16], size = 256} : array<f32[256]>
  %2 = mem.alloc() {dtype = "f32", scope = "shared", size = 256} : array<f32[256]>
  %3 = arith.constant() {value = 0} : index
  %4 = arith.constant() {value = 1} : index
  %5 = arith.constant() {value = 16} : index
  scf.for(%3, %n, %4) {stages = 3} {
  ^(%6: index):
    %7 = arith.mul(%6, %5) : index
    mem.copy_box_in(%a, %3, %7, %n, %n, %s, %4, %0) {shape = [16, 16]}
    mem.dot(%0, %0, %1) {accumulate = true, k = 16, m = 16, n = 16}
    scf.yield()
  }
  mem.copy(%1, %2) {shape = [16, 16]}
  mem.copy_box_out(%2, %c, %3, %3, %3, %n, %n, %5, %s, %4, %n) {shape = [16, 16]}
}
// -----
kernel @lanes(%a: buffer<f32>, %n: index) {
  %0 = mem.alloc() {dtype = "f32", scope = "local", size = 4} : array<f32[4]>
  %1 = mem.alloc() {dtype = "f32", lanes = 4, scope = "private", size = 64} : array<f32[64]>
  %2 = arith.constant() {value = 0} : index
  %3 = arith.constant() {value = 4} : index
  %4 = arith.constant() {value = 1} : index
  mem.load_lanes(%a, %n, %0) {lanes = 4}
  scf.for(%2, %3, %4) {lanes = 4} {
  ^(%5: index):
    %6 = mem.read(%0, %5) : f32
    mem.write(%1, %5, %6)
    scf.yield()
  }
  mem.store_lanes(%0, %a, %n) {lanes = 4}
}
// -----
kernel @nest(%a: buffer<f32>) {
  %0 = mem.alloc() {dtype = "f32", scope = "fragment", shape = [4, 8], size = 32} : array<f32[32]>
  %1 = arith.constant() {value = 32} : index
  scf.parallel(%1) {shape = [4, 8]} {
  ^(%2: index):
    %3 = mem.load(%a, %2) : f32
    mem.write(%0, %2, %3)
    scf.yield()
  }
}
// -----
kernel @slots(%alpha: f32) {
  %0 = mem.alloc() {dtype = "f32", operand_dtype = "f16", scope = "fragment", shape = [16, 16], size = 256} : array<f32[256]>
  %1 = arith.constant() {value = 0} : index
  %2 = arith.constant() {value = 1} : index
  %3 = arith.constant() {value = 256} : index
  %4 = mem.owned_slots(%0) : index
  scf.for(%1, %4, %2) {
  ^(%5: index):
    %6 = mem.owned_position(%0, %5) : index
    %7 = arith.cmp(%6, %3) {pred = "lt"} : i1
    scf.if(%7) {
    ^():
      %8 = mem.read(%0, %5) : f32
      %9 = arith.mul(%8, %alpha) : f32
      mem.write(%0, %5, %9)
      scf.yield()
    } {
    ^():
      scf.yield()
    }
    scf.yield()
  }
}
