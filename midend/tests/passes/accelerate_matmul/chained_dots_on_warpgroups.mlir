// Attention's two dots on sm_90a (4 warps): a chain goes to warpgroup MMAs as a whole, every warp
// along M. Q, loaded before the loop, is converted once, right after its load, to the layout in
// which wgmma reads A from registers (an m64n64 accumulator's); P (the first dot's result, cast)
// is converted before the second dot, a conversion propagate-mma-layout removes. The loop
// carries the accumulator in the second dot's layout.
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @chained(%q_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %k_ptrs: tensor<64x32x!tt.ptr<f16>, #blocked1>, %v_ptrs: tensor<32x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #blocked>, %n: i32) {
  %0 = tt.load %q_ptrs : tensor<64x64xf16, #blocked>
  %1 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %2 = arith.constant {value = 0.0} : tensor<64x32xf32, #blocked1>
  %3 = arith.constant {value = 0} : i32
  %4 = arith.constant {value = 32} : i32
  %5 = scf.for %3, %n, %4, %1 : tensor<64x64xf32, #blocked> {
  ^bb0(%6: i32, %7: tensor<64x64xf32, #blocked>):
    %8 = tt.load %k_ptrs : tensor<64x32xf16, #blocked1>
    %9 = tt.dot %0, %8, %2 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #blocked1>
    %10 = arith.truncf %9 : tensor<64x32xf16, #blocked1>
    %11 = tt.load %v_ptrs : tensor<32x64xf16, #blocked>
    %12 = tt.dot %10, %11, %7 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #blocked>
    scf.yield %12
  }
  tt.store %o_ptrs, %5
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>

tt.func public @chained(%q_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %k_ptrs: tensor<64x32x!tt.ptr<f16>, #blocked1>, %v_ptrs: tensor<32x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #blocked>, %n: i32) {
  %0 = tt.load %q_ptrs : tensor<64x64xf16, #blocked>
  %1 = ttg.convert_layout %0 : tensor<64x64xf16, #mma>
  %2 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %3 = arith.constant {value = 0.0} : tensor<64x32xf32, #blocked1>
  %4 = arith.constant {value = 0} : i32
  %5 = arith.constant {value = 32} : i32
  %6 = ttg.convert_layout %2 : tensor<64x64xf32, #mma>
  %7 = scf.for %4, %n, %5, %6 : tensor<64x64xf32, #mma> {
  ^bb0(%8: i32, %9: tensor<64x64xf32, #mma>):
    %10 = tt.load %k_ptrs : tensor<64x32xf16, #blocked1>
    %11 = arith.constant {value = 0.0} : tensor<64x32xf32, #mma1>
    %12 = ttng.warp_group_dot %1, %10, %11 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #mma1>
    %13 = ttg.convert_layout %12 : tensor<64x32xf32, #blocked1>
    %14 = arith.truncf %13 : tensor<64x32xf16, #blocked1>
    %15 = tt.load %v_ptrs : tensor<32x64xf16, #blocked>
    %16 = ttg.convert_layout %14 : tensor<64x32xf16, #mma1>
    %17 = ttng.warp_group_dot %16, %15, %9 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    %18 = ttg.convert_layout %17 : tensor<64x64xf32, #blocked>
    scf.yield %17
  }
  %19 = ttg.convert_layout %7 : tensor<64x64xf32, #blocked>
  tt.store %o_ptrs, %19
  tt.return
}
