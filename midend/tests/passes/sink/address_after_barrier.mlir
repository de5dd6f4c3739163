module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @late_store(%x: !tt.ptr<f32> {tt.divisibility = 16}, %y: !tt.ptr<f32> {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 128} : tensor<128xi32, #blocked>
  %1 = tt.splat %y : tensor<128x!tt.ptr<f32>, #blocked>
  %2 = tt.addptr %1, %0 : tensor<128x!tt.ptr<f32>, #blocked>
  %3 = tt.splat %x : tensor<128x!tt.ptr<f32>, #blocked>
  %4 = tt.addptr %3, %0 : tensor<128x!tt.ptr<f32>, #blocked>
  %5 = tt.load %4 : tensor<128xf32, #blocked>
  gpu.barrier
  tt.store %2, %5
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @late_store(%x: !tt.ptr<f32> {tt.divisibility = 16}, %y: !tt.ptr<f32> {tt.divisibility = 16}) {
  %0 = tt.splat %x : tensor<128x!tt.ptr<f32>, #blocked>
  %1 = tt.make_range {start = 0, end = 128} : tensor<128xi32, #blocked>
  %2 = tt.addptr %0, %1 : tensor<128x!tt.ptr<f32>, #blocked>
  %3 = tt.load %2 : tensor<128xf32, #blocked>
  gpu.barrier
  %4 = tt.splat %y : tensor<128x!tt.ptr<f32>, #blocked>
  %5 = tt.addptr %4, %1 : tensor<128x!tt.ptr<f32>, #blocked>
  tt.store %5, %3
  tt.return
}
