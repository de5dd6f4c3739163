// Causal attention's mask, computed from ranges in a blocked layout, meets the scores in the
// MMA layout inside the loop: instead of converting it through shared memory every iteration,
// its producers (ranges, splats, shape ops, the comparison) are recomputed in the MMA layout.
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>

tt.func public @masked(%s_ptrs: tensor<64x32x!tt.ptr<f32>, #mma>, %o_ptrs: tensor<64x32x!tt.ptr<f32>, #mma>, %n: i32) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice>
  %1 = tt.expand_dims %0 {axis = 1} : tensor<64x1xi32, #blocked>
  %2 = tt.broadcast %1 : tensor<64x32xi32, #blocked>
  %3 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice1>
  %4 = arith.constant {value = 0} : i32
  %5 = arith.constant {value = 32} : i32
  %6 = arith.constant {value = -inf} : tensor<64x32xf32, #mma>
  %7 = tt.load %s_ptrs : tensor<64x32xf32, #mma>
  %8 = scf.for %4, %n, %5, %7 : tensor<64x32xf32, #mma> {
  ^bb0(%9: i32, %10: tensor<64x32xf32, #mma>):
    %11 = tt.splat %9 : tensor<32xi32, #slice1>
    %12 = arith.addi %11, %3 : tensor<32xi32, #slice1>
    %13 = tt.expand_dims %12 {axis = 0} : tensor<1x32xi32, #blocked>
    %14 = tt.broadcast %13 : tensor<64x32xi32, #blocked>
    %15 = arith.cmpi %2, %14 {predicate = "sge"} : tensor<64x32xi1, #blocked>
    %16 = ttg.convert_layout %15 : tensor<64x32xi1, #mma>
    %17 = arith.select %16, %10, %6 : tensor<64x32xf32, #mma>
    scf.yield %17
  }
  tt.store %o_ptrs, %8
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>}>

tt.func public @masked(%s_ptrs: tensor<64x32x!tt.ptr<f32>, #mma>, %o_ptrs: tensor<64x32x!tt.ptr<f32>, #mma>, %n: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 32} : i32
  %2 = arith.constant {value = -inf} : tensor<64x32xf32, #mma>
  %3 = tt.load %s_ptrs : tensor<64x32xf32, #mma>
  %4 = scf.for %0, %n, %1, %3 : tensor<64x32xf32, #mma> {
  ^bb0(%5: i32, %6: tensor<64x32xf32, #mma>):
    %7 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice>
    %8 = tt.expand_dims %7 {axis = 1} : tensor<64x1xi32, #mma>
    %9 = tt.broadcast %8 : tensor<64x32xi32, #mma>
    %10 = tt.splat %5 : tensor<32xi32, #slice1>
    %11 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice1>
    %12 = arith.addi %10, %11 : tensor<32xi32, #slice1>
    %13 = tt.expand_dims %12 {axis = 0} : tensor<1x32xi32, #mma>
    %14 = tt.broadcast %13 : tensor<64x32xi32, #mma>
    %15 = arith.cmpi %9, %14 {predicate = "sge"} : tensor<64x32xi1, #mma>
    %16 = arith.select %15, %6, %2 : tensor<64x32xf32, #mma>
    scf.yield %16
  }
  tt.store %o_ptrs, %4
  tt.return
}
