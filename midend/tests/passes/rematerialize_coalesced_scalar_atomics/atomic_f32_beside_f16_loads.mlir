module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @accumulate(%x: !tt.ptr<f16> {tt.divisibility = 16}, %acc: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32 {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %1 = tt.splat %n : tensor<1024xi32, #blocked>
  %2 = arith.cmpi %0, %1 {predicate = "slt"} : tensor<1024xi1, #blocked>
  %3 = tt.splat %x : tensor<1024x!tt.ptr<f16>, #blocked>
  %4 = tt.addptr %3, %0 : tensor<1024x!tt.ptr<f16>, #blocked>
  %5 = tt.load %4, %2 : tensor<1024xf16, #blocked>
  %6 = arith.extf %5 : tensor<1024xf32, #blocked>
  %7 = tt.splat %acc : tensor<1024x!tt.ptr<f32>, #blocked>
  %8 = tt.addptr %7, %0 : tensor<1024x!tt.ptr<f32>, #blocked>
  %9 = tt.atomic_rmw %8, %6, %2 {atomic_rmw_op = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<1024xf32, #blocked>
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @accumulate(%x: !tt.ptr<f16> {tt.divisibility = 16}, %acc: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32 {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %1 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %2 = tt.splat %n : tensor<1024xi32, #blocked>
  %3 = arith.cmpi %0, %2 {predicate = "slt"} : tensor<1024xi1, #blocked>
  %4 = tt.splat %x : tensor<1024x!tt.ptr<f16>, #blocked>
  %5 = tt.addptr %4, %1 : tensor<1024x!tt.ptr<f16>, #blocked>
  %6 = tt.load %5, %3 : tensor<1024xf16, #blocked>
  %7 = arith.extf %6 : tensor<1024xf32, #blocked>
  %8 = tt.splat %acc : tensor<1024x!tt.ptr<f32>, #blocked1>
  %9 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked1>
  %10 = tt.addptr %8, %9 : tensor<1024x!tt.ptr<f32>, #blocked1>
  %11 = ttg.convert_layout %7 : tensor<1024xf32, #blocked1>
  %12 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked1>
  %13 = tt.splat %n : tensor<1024xi32, #blocked1>
  %14 = arith.cmpi %12, %13 {predicate = "slt"} : tensor<1024xi1, #blocked1>
  %15 = tt.atomic_rmw %10, %11, %14 {atomic_rmw_op = "fadd", sem = "acq_rel", scope = "gpu"} : tensor<1024xf32, #blocked1>
  tt.return
}
