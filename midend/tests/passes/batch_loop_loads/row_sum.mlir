// Layer norm's first pass: one masked load per iteration, 8 bytes a thread. The loop runs four
// iterations per trip up to the last whole group, the four loads (with their addresses and
// masks) first, then the four additions; the original loop runs what is left.
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
  %7 = arith.constant {value = 4} : i32
  %8 = arith.muli %1, %7 : i32
  %9 = arith.constant {value = 0} : i32
  %10 = arith.subi %n, %0 : i32
  %11 = arith.cmpi %10, %9 {predicate = "slt"} : i1
  %12 = arith.select %11, %9, %10 : i32
  %13 = arith.divsi %12, %8 : i32
  %14 = arith.muli %13, %8 : i32
  %15 = arith.addi %0, %14 : i32
  %16 = scf.for %0, %15, %8, %6 : tensor<512xf32, #blocked> {
  ^bb0(%17: i32, %18: tensor<512xf32, #blocked>):
    %19 = tt.splat %17 : tensor<512xi32, #blocked>
    %20 = arith.addi %19, %2 : tensor<512xi32, #blocked>
    %21 = tt.addptr %3, %20 : tensor<512x!tt.ptr<f16>, #blocked>
    %22 = tt.load %21 : tensor<512xf16, #blocked>
    %23 = arith.constant {value = 512} : i32
    %24 = arith.addi %17, %23 : i32
    %25 = tt.splat %24 : tensor<512xi32, #blocked>
    %26 = arith.addi %25, %2 : tensor<512xi32, #blocked>
    %27 = tt.addptr %3, %26 : tensor<512x!tt.ptr<f16>, #blocked>
    %28 = tt.load %27 : tensor<512xf16, #blocked>
    %29 = arith.constant {value = 1024} : i32
    %30 = arith.addi %17, %29 : i32
    %31 = tt.splat %30 : tensor<512xi32, #blocked>
    %32 = arith.addi %31, %2 : tensor<512xi32, #blocked>
    %33 = tt.addptr %3, %32 : tensor<512x!tt.ptr<f16>, #blocked>
    %34 = tt.load %33 : tensor<512xf16, #blocked>
    %35 = arith.constant {value = 1536} : i32
    %36 = arith.addi %17, %35 : i32
    %37 = tt.splat %36 : tensor<512xi32, #blocked>
    %38 = arith.addi %37, %2 : tensor<512xi32, #blocked>
    %39 = tt.addptr %3, %38 : tensor<512x!tt.ptr<f16>, #blocked>
    %40 = tt.load %39 : tensor<512xf16, #blocked>
    %41 = arith.extf %22 : tensor<512xf32, #blocked>
    %42 = arith.addf %18, %41 : tensor<512xf32, #blocked>
    %43 = arith.extf %28 : tensor<512xf32, #blocked>
    %44 = arith.addf %42, %43 : tensor<512xf32, #blocked>
    %45 = arith.extf %34 : tensor<512xf32, #blocked>
    %46 = arith.addf %44, %45 : tensor<512xf32, #blocked>
    %47 = arith.extf %40 : tensor<512xf32, #blocked>
    %48 = arith.addf %46, %47 : tensor<512xf32, #blocked>
    scf.yield %48
  }
  %49 = scf.for %15, %n, %1, %16 : tensor<512xf32, #blocked> {
  ^bb0(%50: i32, %51: tensor<512xf32, #blocked>):
    %52 = tt.splat %50 : tensor<512xi32, #blocked>
    %53 = arith.addi %52, %2 : tensor<512xi32, #blocked>
    %54 = arith.cmpi %53, %4 {predicate = "slt"} : tensor<512xi1, #blocked>
    %55 = tt.addptr %3, %53 : tensor<512x!tt.ptr<f16>, #blocked>
    %56 = tt.load %55, %54, %5 : tensor<512xf16, #blocked>
    %57 = arith.extf %56 : tensor<512xf32, #blocked>
    %58 = arith.addf %51, %57 : tensor<512xf32, #blocked>
    scf.yield %58
  }
  %59 = tt.reduce %49 {axis = 0} : f32 {
  ^bb0(%60: f32, %61: f32):
    %62 = arith.addf %60, %61 : f32
    tt.reduce.return %62
  }
  tt.store %out, %59
  tt.return
}
