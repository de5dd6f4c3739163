module attributes {ttg.num-warps = 8, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>

tt.func public @softmax_row_kernel(%out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %in_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %in_row_stride: i32 {tt.divisibility = 16}, %out_row_stride: i32 {tt.divisibility = 16}, %n_cols: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.make_range {start = 0, end = 4096} : tensor<4096xi32, #blocked>
  %2 = tt.splat %n_cols : tensor<4096xi32, #blocked>
  %3 = arith.cmpi %1, %2 {predicate = "slt"} : tensor<4096xi1, #blocked>
  %4 = arith.muli %0, %in_row_stride : i32
  %5 = tt.addptr %in_ptr, %4 : !tt.ptr<f32>
  %6 = tt.splat %5 : tensor<4096x!tt.ptr<f32>, #blocked>
  %7 = tt.addptr %6, %1 : tensor<4096x!tt.ptr<f32>, #blocked>
  %8 = arith.constant {value = -inf} : tensor<4096xf32, #blocked>
  %9 = tt.load %7, %3, %8 : tensor<4096xf32, #blocked>
  %10 = tt.reduce %9 {axis = 0} : f32 {
  ^bb0(%11: f32, %12: f32):
    %13 = arith.maxnumf %11, %12 : f32
    tt.reduce.return %13
  }
  %14 = tt.splat %10 : tensor<4096xf32, #blocked>
  %15 = arith.subf %9, %14 : tensor<4096xf32, #blocked>
  %16 = math.exp %15 : tensor<4096xf32, #blocked>
  %17 = tt.reduce %16 {axis = 0} : f32 {
  ^bb0(%18: f32, %19: f32):
    %20 = arith.addf %18, %19 : f32
    tt.reduce.return %20
  }
  %21 = tt.splat %17 : tensor<4096xf32, #blocked>
  %22 = arith.divf %16, %21 : tensor<4096xf32, #blocked>
  %23 = arith.muli %0, %out_row_stride : i32
  %24 = tt.addptr %out_ptr, %23 : !tt.ptr<f32>
  %25 = tt.splat %24 : tensor<4096x!tt.ptr<f32>, #blocked>
  %26 = tt.addptr %25, %1 : tensor<4096x!tt.ptr<f32>, #blocked>
  tt.store %26, %22, %3
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 8, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>

tt.func public @softmax_row_kernel(%out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %in_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %in_row_stride: i32 {tt.divisibility = 16}, %out_row_stride: i32 {tt.divisibility = 16}, %n_cols: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.make_range {start = 0, end = 4096} : tensor<4096xi32, #blocked>
  %2 = tt.make_range {start = 0, end = 4096} : tensor<4096xi32, #blocked>
  %3 = tt.make_range {start = 0, end = 4096} : tensor<4096xi32, #blocked>
  %4 = tt.splat %n_cols : tensor<4096xi32, #blocked>
  %5 = arith.cmpi %1, %4 {predicate = "slt"} : tensor<4096xi1, #blocked>
  %6 = arith.muli %0, %in_row_stride : i32
  %7 = tt.addptr %in_ptr, %6 : !tt.ptr<f32>
  %8 = tt.splat %7 : tensor<4096x!tt.ptr<f32>, #blocked>
  %9 = tt.addptr %8, %3 : tensor<4096x!tt.ptr<f32>, #blocked>
  %10 = arith.constant {value = -inf} : tensor<4096xf32, #blocked>
  %11 = tt.load %9, %5, %10 : tensor<4096xf32, #blocked>
  %12 = tt.reduce %11 {axis = 0} : f32 {
  ^bb0(%13: f32, %14: f32):
    %15 = arith.maxnumf %13, %14 : f32
    tt.reduce.return %15
  }
  %16 = tt.splat %12 : tensor<4096xf32, #blocked>
  %17 = arith.subf %11, %16 : tensor<4096xf32, #blocked>
  %18 = math.exp %17 : tensor<4096xf32, #blocked>
  %19 = tt.reduce %18 {axis = 0} : f32 {
  ^bb0(%20: f32, %21: f32):
    %22 = arith.addf %20, %21 : f32
    tt.reduce.return %22
  }
  %23 = tt.splat %19 : tensor<4096xf32, #blocked>
  %24 = arith.divf %18, %23 : tensor<4096xf32, #blocked>
  %25 = arith.muli %0, %out_row_stride : i32
  %26 = tt.addptr %out_ptr, %25 : !tt.ptr<f32>
  %27 = tt.splat %26 : tensor<4096x!tt.ptr<f32>, #blocked>
  %28 = tt.addptr %27, %2 : tensor<4096x!tt.ptr<f32>, #blocked>
  tt.store %28, %24, %5
  tt.return
}
