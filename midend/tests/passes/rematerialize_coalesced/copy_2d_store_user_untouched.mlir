module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>

tt.func public @copy_2d(%src: !tt.ptr<f16> {tt.divisibility = 16}, %dst: !tt.ptr<f16> {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #blocked>
  %1 = ttg.convert_layout %0 : tensor<64xi32, #slice>
  %2 = tt.expand_dims %1 {axis = 0} : tensor<1x64xi32, #blocked1>
  %3 = tt.broadcast %2 : tensor<16x64xi32, #blocked1>
  %4 = tt.splat %src : tensor<16x64x!tt.ptr<f16>, #blocked1>
  %5 = tt.addptr %4, %3 : tensor<16x64x!tt.ptr<f16>, #blocked1>
  %6 = tt.load %5 : tensor<16x64xf16, #blocked1>
  %7 = tt.splat %dst : tensor<16x64x!tt.ptr<f16>, #blocked1>
  %8 = tt.addptr %7, %3 : tensor<16x64x!tt.ptr<f16>, #blocked1>
  tt.store %8, %6
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>

tt.func public @copy_2d(%src: !tt.ptr<f16> {tt.divisibility = 16}, %dst: !tt.ptr<f16> {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #blocked>
  %1 = ttg.convert_layout %0 : tensor<64xi32, #slice>
  %2 = tt.expand_dims %1 {axis = 0} : tensor<1x64xi32, #blocked1>
  %3 = tt.broadcast %2 : tensor<16x64xi32, #blocked1>
  %4 = tt.splat %src : tensor<16x64x!tt.ptr<f16>, #blocked1>
  %5 = tt.addptr %4, %3 : tensor<16x64x!tt.ptr<f16>, #blocked1>
  %6 = tt.load %5 : tensor<16x64xf16, #blocked1>
  %7 = tt.splat %dst : tensor<16x64x!tt.ptr<f16>, #blocked1>
  %8 = tt.addptr %7, %3 : tensor<16x64x!tt.ptr<f16>, #blocked1>
  tt.store %8, %6
  tt.return
}
