// The buffers loaded and stored are recorded on the kernel, in argument order.
// RUN: ssa.analyze_effects
kernel @effects(%z: buffer<f32>, %a: buffer<f32>, %b: buffer<f32>, %unused: buffer<f32>) {
  %zero = arith.constant() {value = 0} : index
  %v = mem.load(%z, %zero) : f32
  %w = mem.load(%a, %zero) : f32
  %s = arith.add(%v, %w) : f32
  mem.store(%b, %zero, %s)
  mem.store(%a, %zero, %s)
}
// CHECK: kernel @effects(%z: buffer<f32>, %a: buffer<f32>, %b: buffer<f32>, %unused: buffer<f32>) attributes {reads = ["z", "a"], writes = ["a", "b"]} {
