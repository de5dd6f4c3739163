module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @scores(%q: tensor<32x16x!tt.ptr<f16>, #blocked>, %k: tensor<32x16x!tt.ptr<f16>, #blocked>, %s: tensor<32x32x!tt.ptr<f32>, #blocked2>) {
  %0 = tt.load %q : tensor<32x16xf16, #blocked>
  %1 = tt.load %k : tensor<32x16xf16, #blocked>
  %2 = ttg.convert_layout %1 : tensor<32x16xf16, #blocked2>
  %3 = tt.trans %2 {order = [1, 0]} : tensor<16x32xf16, #blocked1>
  %4 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked2>
  %5 = tt.dot %0, %3, %4 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #blocked2>
  tt.store %s, %5
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [2, 16], warpsPerCTA = [2, 2], order = [0, 1]}>

tt.func public @scores(%q: tensor<32x16x!tt.ptr<f16>, #blocked>, %k: tensor<32x16x!tt.ptr<f16>, #blocked>, %s: tensor<32x32x!tt.ptr<f32>, #blocked1>) {
  %0 = tt.load %q : tensor<32x16xf16, #blocked>
  %1 = tt.load %k : tensor<32x16xf16, #blocked>
  %2 = tt.trans %1 {order = [1, 0]} : tensor<16x32xf16, #blocked2>
  %3 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked1>
  %4 = tt.dot %0, %2, %3 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #blocked1>
  tt.store %s, %4
  tt.return
}
