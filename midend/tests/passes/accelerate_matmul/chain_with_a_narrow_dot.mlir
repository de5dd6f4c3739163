// A chain goes to warpgroup MMAs only as a whole: the second dot's N of 8 is too narrow for a
// warpgroup MMA here, so both dots keep MMA v2 (every warp along the larger dimension).
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @chained(%q_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked1>, %k_ptrs: tensor<64x32x!tt.ptr<f16>, #blocked1>, %v_ptrs: tensor<32x8x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x8x!tt.ptr<f32>, #blocked>) {
  %0 = tt.load %q_ptrs : tensor<64x64xf16, #blocked1>
  %1 = arith.constant {value = 0.0} : tensor<64x8xf32, #blocked>
  %2 = arith.constant {value = 0.0} : tensor<64x32xf32, #blocked1>
  %3 = tt.load %k_ptrs : tensor<64x32xf16, #blocked1>
  %4 = tt.dot %0, %3, %2 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #blocked1>
  %5 = arith.truncf %4 : tensor<64x32xf16, #blocked1>
  %6 = tt.load %v_ptrs : tensor<32x8xf16, #blocked>
  %7 = tt.dot %5, %6, %1 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x8xf32, #blocked>
  tt.store %o_ptrs, %7
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

tt.func public @chained(%q_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %k_ptrs: tensor<64x32x!tt.ptr<f16>, #blocked>, %v_ptrs: tensor<32x8x!tt.ptr<f16>, #blocked1>, %o_ptrs: tensor<64x8x!tt.ptr<f32>, #blocked1>) {
  %0 = tt.load %q_ptrs : tensor<64x64xf16, #blocked>
  %1 = arith.constant {value = 0.0} : tensor<64x8xf32, #blocked1>
  %2 = arith.constant {value = 0.0} : tensor<64x32xf32, #blocked>
  %3 = tt.load %k_ptrs : tensor<64x32xf16, #blocked>
  %4 = arith.constant {value = 0.0} : tensor<64x32xf32, #mma>
  %5 = tt.dot %0, %3, %4 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #mma>
  %6 = ttg.convert_layout %5 : tensor<64x32xf32, #blocked>
  %7 = arith.truncf %6 : tensor<64x32xf16, #blocked>
  %8 = tt.load %v_ptrs : tensor<32x8xf16, #blocked1>
  %9 = arith.constant {value = 0.0} : tensor<64x8xf32, #mma>
  %10 = tt.dot %7, %8, %9 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x8xf32, #mma>
  %11 = ttg.convert_layout %10 : tensor<64x8xf32, #blocked1>
  tt.store %o_ptrs, %11
  tt.return
}
