// Unused pure ops and unused non-volatile loads go, chains included (also through reduce
// regions); stores, volatile loads and used values stay.
tt.func public @kernel(%p: tensor<32x!tt.ptr<f32>>, %x: tensor<32xf32>) {
  %a = arith.addf %x, %x : tensor<32xf32>
  %b = arith.mulf %a, %a : tensor<32xf32>
  %unused_load = tt.load %p : tensor<32xf32>
  %volatile_load = tt.load %p {volatile = true} : tensor<32xf32>
  %r = tt.reduce %b {axis = 0} : f32 {
  ^bb0(%l: f32, %m: f32):
    %s = arith.addf %l, %m : f32
    tt.reduce.return %s
  }
  %kept = arith.subf %x, %x : tensor<32xf32>
  tt.store %p, %kept
  tt.return
}
// ----- expected
tt.func public @kernel(%p: tensor<32x!tt.ptr<f32>>, %x: tensor<32xf32>) {
  %0 = tt.load %p {volatile = true} : tensor<32xf32>
  %1 = arith.subf %x, %x : tensor<32xf32>
  tt.store %p, %1
  tt.return
}
