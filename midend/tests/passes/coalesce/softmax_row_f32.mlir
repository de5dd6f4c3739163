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
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>

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
  %9 = ttg.convert_layout %7 : tensor<4096x!tt.ptr<f32>, #blocked1>
  %10 = ttg.convert_layout %3 : tensor<4096xi1, #blocked1>
  %11 = ttg.convert_layout %8 : tensor<4096xf32, #blocked1>
  %12 = tt.load %9, %10, %11 : tensor<4096xf32, #blocked1>
  %13 = ttg.convert_layout %12 : tensor<4096xf32, #blocked>
  %14 = tt.reduce %13 {axis = 0} : f32 {
  ^bb0(%15: f32, %16: f32):
    %17 = arith.maxnumf %15, %16 : f32
    tt.reduce.return %17
  }
  %18 = tt.splat %14 : tensor<4096xf32, #blocked>
  %19 = arith.subf %13, %18 : tensor<4096xf32, #blocked>
  %20 = math.exp %19 : tensor<4096xf32, #blocked>
  %21 = tt.reduce %20 {axis = 0} : f32 {
  ^bb0(%22: f32, %23: f32):
    %24 = arith.addf %22, %23 : f32
    tt.reduce.return %24
  }
  %25 = tt.splat %21 : tensor<4096xf32, #blocked>
  %26 = arith.divf %20, %25 : tensor<4096xf32, #blocked>
  %27 = arith.muli %0, %out_row_stride : i32
  %28 = tt.addptr %out_ptr, %27 : !tt.ptr<f32>
  %29 = tt.splat %28 : tensor<4096x!tt.ptr<f32>, #blocked>
  %30 = tt.addptr %29, %1 : tensor<4096x!tt.ptr<f32>, #blocked>
  %31 = ttg.convert_layout %30 : tensor<4096x!tt.ptr<f32>, #blocked1>
  %32 = ttg.convert_layout %26 : tensor<4096xf32, #blocked1>
  %33 = ttg.convert_layout %3 : tensor<4096xi1, #blocked1>
  tt.store %31, %32, %33
  tt.return
}
