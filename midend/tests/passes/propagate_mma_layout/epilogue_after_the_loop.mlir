// The loop carries the accumulator in the MMA layout and converts it back after the loop; the
// epilogue (`acc / l`, the cast) then runs in the MMA layout too, and only the f16 tile is
// converted for the store.
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>

tt.func public @epilogue(%a: tensor<64x64xf16, #mma>, %b_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %n: i32, %l: f32) {
  %0 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 1} : i32
  %3 = scf.for %1, %n, %2, %0 : tensor<64x64xf32, #blocked> {
  ^bb0(%4: i32, %5: tensor<64x64xf32, #blocked>):
    %6 = tt.load %b_ptrs : tensor<64x64xf16, #blocked>
    %7 = ttg.convert_layout %5 : tensor<64x64xf32, #mma>
    %8 = ttng.warp_group_dot %a, %6, %7 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    %9 = ttg.convert_layout %8 : tensor<64x64xf32, #blocked>
    scf.yield %9
  }
  %10 = tt.splat %l : tensor<64x64xf32, #blocked>
  %11 = arith.divf %3, %10 : tensor<64x64xf32, #blocked>
  %12 = arith.truncf %11 : tensor<64x64xf16, #blocked>
  tt.store %o_ptrs, %12
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>

tt.func public @epilogue(%a: tensor<64x64xf16, #mma>, %b_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %n: i32, %l: f32) {
  %0 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 1} : i32
  %3 = ttg.convert_layout %0 : tensor<64x64xf32, #mma>
  %4 = scf.for %1, %n, %2, %3 : tensor<64x64xf32, #mma> {
  ^bb0(%5: i32, %6: tensor<64x64xf32, #mma>):
    %7 = tt.load %b_ptrs : tensor<64x64xf16, #blocked>
    %8 = ttng.warp_group_dot %a, %7, %6 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %8
  }
  %9 = tt.splat %l : tensor<64x64xf32, #mma>
  %10 = arith.divf %4, %9 : tensor<64x64xf32, #mma>
  %11 = arith.truncf %10 : tensor<64x64xf16, #mma>
  %12 = ttg.convert_layout %11 : tensor<64x64xf16, #blocked>
  tt.store %o_ptrs, %12
  tt.return
}
