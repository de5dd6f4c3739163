// A step of 2^30: two or four of them would overflow the i32 induction variable in the main
// loop's step, so the loop runs one block a trip; it is still split at its last whole block,
// where its mask is dropped.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func public @huge(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %zero = arith.constant {value = 0} : i32
  %step = arith.constant {value = 1073741824} : i32
  %range = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %xs = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %bound = tt.splat %n : tensor<512xi32, #blocked>
  %init = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %sum = scf.for %zero, %n, %step, %init : tensor<512xf32, #blocked> {
  ^bb0(%i: i32, %acc: tensor<512xf32, #blocked>):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %live = arith.cmpi %cols, %bound {predicate = "slt"} : tensor<512xi1, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p, %live, %init : tensor<512xf32, #blocked>
    %next = arith.addf %acc, %v : tensor<512xf32, #blocked>
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

tt.func public @huge(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %n: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 1073741824} : i32
  %2 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %3 = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %4 = tt.splat %n : tensor<512xi32, #blocked>
  %5 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %6 = arith.constant {value = 1} : i32
  %7 = arith.muli %1, %6 : i32
  %8 = arith.constant {value = 0} : i32
  %9 = arith.subi %n, %0 : i32
  %10 = arith.cmpi %9, %8 {predicate = "slt"} : i1
  %11 = arith.select %10, %8, %9 : i32
  %12 = arith.divsi %11, %7 : i32
  %13 = arith.muli %12, %7 : i32
  %14 = arith.addi %0, %13 : i32
  %15 = scf.for %0, %14, %7, %5 : tensor<512xf32, #blocked> {
  ^bb0(%16: i32, %17: tensor<512xf32, #blocked>):
    %18 = tt.splat %16 : tensor<512xi32, #blocked>
    %19 = arith.addi %18, %2 : tensor<512xi32, #blocked>
    %20 = tt.addptr %3, %19 : tensor<512x!tt.ptr<f32>, #blocked>
    %21 = tt.load %20 : tensor<512xf32, #blocked>
    %22 = arith.addf %17, %21 : tensor<512xf32, #blocked>
    scf.yield %22
  }
  %23 = scf.for %14, %n, %1, %15 : tensor<512xf32, #blocked> {
  ^bb0(%24: i32, %25: tensor<512xf32, #blocked>):
    %26 = tt.splat %24 : tensor<512xi32, #blocked>
    %27 = arith.addi %26, %2 : tensor<512xi32, #blocked>
    %28 = arith.cmpi %27, %4 {predicate = "slt"} : tensor<512xi1, #blocked>
    %29 = tt.addptr %3, %27 : tensor<512x!tt.ptr<f32>, #blocked>
    %30 = tt.load %29, %28, %5 : tensor<512xf32, #blocked>
    %31 = arith.addf %25, %30 : tensor<512xf32, #blocked>
    scf.yield %31
  }
  %32 = tt.reduce %23 {axis = 0} : f32 {
  ^bb0(%33: f32, %34: f32):
    %35 = arith.addf %33, %34 : f32
    tt.reduce.return %35
  }
  tt.store %out, %32
  tt.return
}
