// Layer norm's writing pass: a masked load and a masked store of the same columns. The store
// keeps one block per trip (a later block's load may read what it wrote), but the loop is split
// at its last whole block, where `cols < n` holds for every element: the main loop loads and
// stores without masks, the original loop runs the rest with them.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func public @scale(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32, %s: f32) {
  %zero = arith.constant {value = 0} : i32
  %block = arith.constant {value = 512} : i32
  %range = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %xs = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %ys = tt.splat %y : tensor<512x!tt.ptr<f32>, #blocked>
  %bound = tt.splat %n : tensor<512xi32, #blocked>
  %other = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %factor = tt.splat %s : tensor<512xf32, #blocked>
  scf.for %zero, %n, %block {
  ^bb0(%i: i32):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %range, %first : tensor<512xi32, #blocked>
    %live = arith.cmpi %cols, %bound {predicate = "slt"} : tensor<512xi1, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p, %live, %other : tensor<512xf32, #blocked>
    %scaled = arith.mulf %v, %factor : tensor<512xf32, #blocked>
    %kept = arith.select %live, %scaled, %other : tensor<512xf32, #blocked>
    %q = tt.addptr %ys, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    tt.store %q, %kept, %live
    scf.yield
  }
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @scale(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32, %s: f32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 512} : i32
  %2 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %3 = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %4 = tt.splat %y : tensor<512x!tt.ptr<f32>, #blocked>
  %5 = tt.splat %n : tensor<512xi32, #blocked>
  %6 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %7 = tt.splat %s : tensor<512xf32, #blocked>
  %8 = arith.constant {value = 1} : i32
  %9 = arith.muli %1, %8 : i32
  %10 = arith.constant {value = 0} : i32
  %11 = arith.subi %n, %0 : i32
  %12 = arith.cmpi %11, %10 {predicate = "slt"} : i1
  %13 = arith.select %12, %10, %11 : i32
  %14 = arith.divsi %13, %9 : i32
  %15 = arith.muli %14, %9 : i32
  %16 = arith.addi %0, %15 : i32
  scf.for %0, %16, %9 {
  ^bb0(%17: i32):
    %18 = tt.splat %17 : tensor<512xi32, #blocked>
    %19 = arith.addi %2, %18 : tensor<512xi32, #blocked>
    %20 = tt.addptr %3, %19 : tensor<512x!tt.ptr<f32>, #blocked>
    %21 = tt.load %20 : tensor<512xf32, #blocked>
    %22 = arith.mulf %21, %7 : tensor<512xf32, #blocked>
    %23 = tt.addptr %4, %19 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.store %23, %22
    scf.yield
  }
  scf.for %16, %n, %1 {
  ^bb0(%24: i32):
    %25 = tt.splat %24 : tensor<512xi32, #blocked>
    %26 = arith.addi %2, %25 : tensor<512xi32, #blocked>
    %27 = arith.cmpi %26, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %28 = tt.addptr %3, %26 : tensor<512x!tt.ptr<f32>, #blocked>
    %29 = tt.load %28, %27, %6 : tensor<512xf32, #blocked>
    %30 = arith.mulf %29, %7 : tensor<512xf32, #blocked>
    %31 = arith.select %27, %30, %6 : tensor<512xf32, #blocked>
    %32 = tt.addptr %4, %26 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.store %32, %31, %27
    scf.yield
  }
  tt.return
}
