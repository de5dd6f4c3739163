tt.func public @row_max(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 4} : tensor<4xi32>
  %1 = tt.expand_dims %0 {axis = 1} : tensor<4x1xi32>
  %2 = arith.constant {value = 64} : tensor<4x1xi32>
  %3 = arith.muli %1, %2 : tensor<4x1xi32>
  %4 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %5 = tt.expand_dims %4 {axis = 0} : tensor<1x64xi32>
  %6 = tt.broadcast %3 : tensor<4x64xi32>
  %7 = tt.broadcast %5 : tensor<4x64xi32>
  %8 = arith.addi %6, %7 : tensor<4x64xi32>
  %9 = tt.splat %x_ptr : tensor<4x64x!tt.ptr<f32>>
  %10 = tt.addptr %9, %8 : tensor<4x64x!tt.ptr<f32>>
  %11 = tt.load %10 : tensor<4x64xf32>
  %12 = tt.reduce %11 {axis = 1} : tensor<4xf32> {
  ^bb0(%13: f32, %14: f32):
    %15 = arith.maxnumf %13, %14 : f32
    tt.reduce.return %15
  }
  %16 = tt.splat %out_ptr : tensor<4x!tt.ptr<f32>>
  %17 = tt.addptr %16, %0 : tensor<4x!tt.ptr<f32>>
  tt.store %17, %12
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>}>

tt.func public @row_max(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 4} : tensor<4xi32, #blocked>
  %1 = ttg.convert_layout %0 : tensor<4xi32, #slice>
  %2 = tt.expand_dims %1 {axis = 1} : tensor<4x1xi32, #blocked1>
  %3 = arith.constant {value = 64} : tensor<4x1xi32, #blocked1>
  %4 = arith.muli %2, %3 : tensor<4x1xi32, #blocked1>
  %5 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #blocked>
  %6 = ttg.convert_layout %5 : tensor<64xi32, #slice1>
  %7 = tt.expand_dims %6 {axis = 0} : tensor<1x64xi32, #blocked2>
  %8 = ttg.convert_layout %4 : tensor<4x1xi32, #blocked2>
  %9 = tt.broadcast %8 : tensor<4x64xi32, #blocked2>
  %10 = tt.broadcast %7 : tensor<4x64xi32, #blocked2>
  %11 = arith.addi %9, %10 : tensor<4x64xi32, #blocked2>
  %12 = tt.splat %x_ptr : tensor<4x64x!tt.ptr<f32>, #blocked2>
  %13 = tt.addptr %12, %11 : tensor<4x64x!tt.ptr<f32>, #blocked2>
  %14 = tt.load %13 : tensor<4x64xf32, #blocked2>
  %15 = tt.reduce %14 {axis = 1} : tensor<4xf32, #slice2> {
  ^bb0(%16: f32, %17: f32):
    %18 = arith.maxnumf %16, %17 : f32
    tt.reduce.return %18
  }
  %19 = tt.splat %out_ptr : tensor<4x!tt.ptr<f32>, #blocked>
  %20 = tt.addptr %19, %0 : tensor<4x!tt.ptr<f32>, #blocked>
  %21 = ttg.convert_layout %15 : tensor<4xf32, #blocked>
  tt.store %20, %21
  tt.return
}
