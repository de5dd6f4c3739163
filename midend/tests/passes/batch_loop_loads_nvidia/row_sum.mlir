// On NVIDIA targets ptxas schedules the loads of such a loop itself: the pass leaves it alone.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func public @row_sum(%x: !tt.ptr<f16>, %out: !tt.ptr<f32>, %n: i32) {
  %zero = arith.constant {value = 0} : i32
  %block = arith.constant {value = 512} : i32
  %range = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %base = tt.splat %x : tensor<512x!tt.ptr<f16>, #blocked>
  %bound = tt.splat %n : tensor<512xi32, #blocked>
  %other = arith.constant {value = 0.0} : tensor<512xf16, #blocked>
  %init = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %sum = scf.for %zero, %n, %block, %init : tensor<512xf32, #blocked> {
  ^bb0(%i: i32, %acc: tensor<512xf32, #blocked>):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %live = arith.cmpi %cols, %bound {predicate = "slt"} : tensor<512xi1, #blocked>
    %p = tt.addptr %base, %cols : tensor<512x!tt.ptr<f16>, #blocked>
    %v = tt.load %p, %live, %other : tensor<512xf16, #blocked>
    %w = arith.extf %v : tensor<512xf32, #blocked>
    %next = arith.addf %acc, %w : tensor<512xf32, #blocked>
    scf.yield %next
  }
  %total = tt.reduce %sum {axis = 0} : f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.reduce.return %c
  }
  tt.store %out, %total
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @row_sum(%x: !tt.ptr<f16>, %out: !tt.ptr<f32>, %n: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 512} : i32
  %2 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %3 = tt.splat %x : tensor<512x!tt.ptr<f16>, #blocked>
  %4 = tt.splat %n : tensor<512xi32, #blocked>
  %5 = arith.constant {value = 0.0} : tensor<512xf16, #blocked>
  %6 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %7 = scf.for %0, %n, %1, %6 : tensor<512xf32, #blocked> {
  ^bb0(%8: i32, %9: tensor<512xf32, #blocked>):
    %10 = tt.splat %8 : tensor<512xi32, #blocked>
    %11 = arith.addi %10, %2 : tensor<512xi32, #blocked>
    %12 = arith.cmpi %11, %4 {predicate = "slt"} : tensor<512xi1, #blocked>
    %13 = tt.addptr %3, %11 : tensor<512x!tt.ptr<f16>, #blocked>
    %14 = tt.load %13, %12, %5 : tensor<512xf16, #blocked>
    %15 = arith.extf %14 : tensor<512xf32, #blocked>
    %16 = arith.addf %9, %15 : tensor<512xf32, #blocked>
    scf.yield %16
  }
  %17 = tt.reduce %7 {axis = 0} : f32 {
  ^bb0(%18: f32, %19: f32):
    %20 = arith.addf %18, %19 : f32
    tt.reduce.return %20
  }
  tt.store %out, %17
  tt.return
}
