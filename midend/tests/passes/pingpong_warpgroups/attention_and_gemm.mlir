// Two warpgroups (8 warps along M): the attention loop's QK^T (zero accumulator, chained to
// P V) takes turns; its P V does not, nor does the single dot of the GEMM loop (it accumulates).
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 32, 16]}>

tt.func public @attention(%q: tensor<128x64xf16, #mma>, %k: tensor<64x32xf16, #mma>, %v: tensor<32x64xf16, #mma>, %w: tensor<64x64xf16, #mma>, %o_ptrs: tensor<128x64x!tt.ptr<f32>, #mma>, %n: i32) {
  %0 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 32} : i32
  %3 = scf.for %1, %n, %2, %0 : tensor<128x64xf32, #mma> {
  ^bb0(%4: i32, %5: tensor<128x64xf32, #mma>):
    %6 = arith.constant {value = 0.0} : tensor<128x32xf32, #mma1>
    %7 = ttng.warp_group_dot %q, %k, %6 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x32xf32, #mma1>
    %8 = math.exp2 %7 : tensor<128x32xf32, #mma1>
    %9 = arith.truncf %8 : tensor<128x32xf16, #mma1>
    %10 = ttng.warp_group_dot %9, %v, %5 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32, #mma>
    scf.yield %10
  }
  %11 = scf.for %1, %n, %2, %3 : tensor<128x64xf32, #mma> {
  ^bb0(%12: i32, %13: tensor<128x64xf32, #mma>):
    %14 = ttng.warp_group_dot %q, %w, %13 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32, #mma>
    scf.yield %14
  }
  tt.store %o_ptrs, %11
  tt.return
}
// ----- expected
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 32, 16]}>

tt.func public @attention(%q: tensor<128x64xf16, #mma>, %k: tensor<64x32xf16, #mma>, %v: tensor<32x64xf16, #mma>, %w: tensor<64x64xf16, #mma>, %o_ptrs: tensor<128x64x!tt.ptr<f32>, #mma>, %n: i32) {
  %0 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 32} : i32
  %3 = scf.for %1, %n, %2, %0 : tensor<128x64xf32, #mma> {
  ^bb0(%4: i32, %5: tensor<128x64xf32, #mma>):
    %6 = arith.constant {value = 0.0} : tensor<128x32xf32, #mma1>
    %7 = ttng.warp_group_dot %q, %k, %6 {input_precision = "tf32", max_num_imprecise_acc = 0, pingpong = true} : tensor<128x32xf32, #mma1>
    %8 = math.exp2 %7 : tensor<128x32xf32, #mma1>
    %9 = arith.truncf %8 : tensor<128x32xf16, #mma1>
    %10 = ttng.warp_group_dot %9, %v, %5 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32, #mma>
    scf.yield %10
  }
  %11 = scf.for %1, %n, %2, %3 : tensor<128x64xf32, #mma> {
  ^bb0(%12: i32, %13: tensor<128x64xf32, #mma>):
    %14 = ttng.warp_group_dot %q, %w, %13 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32, #mma>
    scf.yield %14
  }
  tt.store %o_ptrs, %11
  tt.return
}
