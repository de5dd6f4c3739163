module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @fill(%x: !tt.ptr<f32> {tt.divisibility = 16}, %v: f32) {
  %0 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %1 = ttg.convert_layout %0 : tensor<512xf32, #blocked1>
  %2 = tt.splat %v : tensor<512xf32, #blocked>
  %3 = ttg.convert_layout %2 : tensor<512xf32, #blocked1>
  %4 = arith.addf %1, %3 : tensor<512xf32, #blocked1>
  %5 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked1>
  %6 = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked1>
  %7 = tt.addptr %6, %5 : tensor<512x!tt.ptr<f32>, #blocked1>
  tt.store %7, %4
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @fill(%x: !tt.ptr<f32> {tt.divisibility = 16}, %v: f32) {
  %0 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %1 = tt.splat %v : tensor<512xf32, #blocked>
  %2 = arith.addf %0, %1 : tensor<512xf32, #blocked>
  %3 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %4 = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %5 = tt.addptr %4, %3 : tensor<512x!tt.ptr<f32>, #blocked>
  tt.store %5, %2
  tt.return
}
