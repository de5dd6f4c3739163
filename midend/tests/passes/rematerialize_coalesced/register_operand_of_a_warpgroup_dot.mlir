// Attention's Q: a tile loaded in a narrow layout and converted to the layout in which a
// warpgroup dot reads A from registers. The load takes the coalesced layout and the conversion
// converts from it directly (one trip through shared memory, not two); being a register
// operand's layout, it is not dropped as conversions into dots otherwise are.
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>

tt.func public @q_operand(%q: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice>
  %1 = tt.expand_dims %0 {axis = 1} : tensor<64x1xi32, #blocked>
  %2 = arith.constant {value = 64} : tensor<64x1xi32, #blocked>
  %3 = arith.muli %1, %2 : tensor<64x1xi32, #blocked>
  %4 = tt.splat %q : tensor<64x1x!tt.ptr<f16>, #blocked>
  %5 = tt.addptr %4, %3 : tensor<64x1x!tt.ptr<f16>, #blocked>
  %6 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice1>
  %7 = tt.expand_dims %6 {axis = 0} : tensor<1x64xi32, #blocked>
  %8 = tt.broadcast %5 : tensor<64x64x!tt.ptr<f16>, #blocked>
  %9 = tt.broadcast %7 : tensor<64x64xi32, #blocked>
  %10 = tt.addptr %8, %9 : tensor<64x64x!tt.ptr<f16>, #blocked>
  %11 = tt.load %10 : tensor<64x64xf16, #blocked>
  %12 = ttg.convert_layout %11 : tensor<64x64xf16, #mma>
  %13 = tt.load %k_ptrs : tensor<64x64xf16, #blocked>
  %14 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %15 = ttng.warp_group_dot %12, %13, %14 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
  tt.store %o_ptrs, %15
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @q_operand(%q: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>) {
  %0 = tt.splat %q : tensor<64x1x!tt.ptr<f16>, #blocked1>
  %1 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice>
  %2 = tt.expand_dims %1 {axis = 1} : tensor<64x1xi32, #blocked1>
  %3 = arith.constant {value = 64} : tensor<64x1xi32, #blocked1>
  %4 = arith.muli %2, %3 : tensor<64x1xi32, #blocked1>
  %5 = tt.addptr %0, %4 : tensor<64x1x!tt.ptr<f16>, #blocked1>
  %6 = tt.broadcast %5 : tensor<64x64x!tt.ptr<f16>, #blocked1>
  %7 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice1>
  %8 = tt.expand_dims %7 {axis = 0} : tensor<1x64xi32, #blocked1>
  %9 = tt.broadcast %8 : tensor<64x64xi32, #blocked1>
  %10 = tt.addptr %6, %9 : tensor<64x64x!tt.ptr<f16>, #blocked1>
  %11 = tt.load %10 : tensor<64x64xf16, #blocked1>
  %12 = tt.load %k_ptrs : tensor<64x64xf16, #blocked>
  %13 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %14 = ttg.convert_layout %11 : tensor<64x64xf16, #mma>
  %15 = ttng.warp_group_dot %14, %12, %13 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
  tt.store %o_ptrs, %15
  tt.return
}
