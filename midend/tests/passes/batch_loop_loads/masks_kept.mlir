// Masks that may be false in a whole block stay. A loop from a lower bound that is not a constant
// (the main loop's bounds could wrap) is left as it is. With columns twice as wide as the step,
// the last copy keeps its mask (its columns reach past the trip, so past the bound in the last
// one), while the first three lose theirs; the loop loads four blocks a trip.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func public @kernel(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %lo: i32, %n: i32) {
  %zero = arith.constant {value = 0} : i32
  %half = arith.constant {value = 256} : i32
  %block = arith.constant {value = 512} : i32
  %range = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %xs = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %bound = tt.splat %n : tensor<512xi32, #blocked>
  %other = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %r1 = scf.for %lo, %n, %block, %other : tensor<512xf32, #blocked> {
  ^bb0(%i: i32, %acc: tensor<512xf32, #blocked>):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %live = arith.cmpi %cols, %bound {predicate = "slt"} : tensor<512xi1, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p, %live, %other : tensor<512xf32, #blocked>
    %next = arith.addf %acc, %v : tensor<512xf32, #blocked>
    scf.yield %next
  }
  %r2 = scf.for %zero, %n, %half, %r1 : tensor<512xf32, #blocked> {
  ^bb0(%i: i32, %acc: tensor<512xf32, #blocked>):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %live = arith.cmpi %cols, %bound {predicate = "slt"} : tensor<512xi1, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p, %live, %other : tensor<512xf32, #blocked>
    %next = arith.addf %acc, %v : tensor<512xf32, #blocked>
    scf.yield %next
  }
  %total = tt.reduce %r2 {axis = 0} : f32 {
  ^bb0(%a: f32, %b: f32):
    %c = arith.addf %a, %b : f32
    tt.reduce.return %c
  }
  tt.store %out, %total
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @kernel(%x: !tt.ptr<f32>, %out: !tt.ptr<f32>, %lo: i32, %n: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 256} : i32
  %2 = arith.constant {value = 512} : i32
  %3 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %4 = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %5 = tt.splat %n : tensor<512xi32, #blocked>
  %6 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %7 = scf.for %lo, %n, %2, %6 : tensor<512xf32, #blocked> {
  ^bb0(%8: i32, %9: tensor<512xf32, #blocked>):
    %10 = tt.splat %8 : tensor<512xi32, #blocked>
    %11 = arith.addi %10, %3 : tensor<512xi32, #blocked>
    %12 = arith.cmpi %11, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %13 = tt.addptr %4, %11 : tensor<512x!tt.ptr<f32>, #blocked>
    %14 = tt.load %13, %12, %6 : tensor<512xf32, #blocked>
    %15 = arith.addf %9, %14 : tensor<512xf32, #blocked>
    scf.yield %15
  }
  %16 = arith.constant {value = 4} : i32
  %17 = arith.muli %1, %16 : i32
  %18 = arith.constant {value = 0} : i32
  %19 = arith.subi %n, %0 : i32
  %20 = arith.cmpi %19, %18 {predicate = "slt"} : i1
  %21 = arith.select %20, %18, %19 : i32
  %22 = arith.divsi %21, %17 : i32
  %23 = arith.muli %22, %17 : i32
  %24 = arith.addi %0, %23 : i32
  %25 = scf.for %0, %24, %17, %7 : tensor<512xf32, #blocked> {
  ^bb0(%26: i32, %27: tensor<512xf32, #blocked>):
    %28 = tt.splat %26 : tensor<512xi32, #blocked>
    %29 = arith.addi %28, %3 : tensor<512xi32, #blocked>
    %30 = tt.addptr %4, %29 : tensor<512x!tt.ptr<f32>, #blocked>
    %31 = tt.load %30 : tensor<512xf32, #blocked>
    %32 = arith.constant {value = 256} : i32
    %33 = arith.addi %26, %32 : i32
    %34 = tt.splat %33 : tensor<512xi32, #blocked>
    %35 = arith.addi %34, %3 : tensor<512xi32, #blocked>
    %36 = tt.addptr %4, %35 : tensor<512x!tt.ptr<f32>, #blocked>
    %37 = tt.load %36 : tensor<512xf32, #blocked>
    %38 = arith.constant {value = 512} : i32
    %39 = arith.addi %26, %38 : i32
    %40 = tt.splat %39 : tensor<512xi32, #blocked>
    %41 = arith.addi %40, %3 : tensor<512xi32, #blocked>
    %42 = tt.addptr %4, %41 : tensor<512x!tt.ptr<f32>, #blocked>
    %43 = tt.load %42 : tensor<512xf32, #blocked>
    %44 = arith.constant {value = 768} : i32
    %45 = arith.addi %26, %44 : i32
    %46 = tt.splat %45 : tensor<512xi32, #blocked>
    %47 = arith.addi %46, %3 : tensor<512xi32, #blocked>
    %48 = arith.cmpi %47, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %49 = tt.addptr %4, %47 : tensor<512x!tt.ptr<f32>, #blocked>
    %50 = tt.load %49, %48, %6 : tensor<512xf32, #blocked>
    %51 = arith.addf %27, %31 : tensor<512xf32, #blocked>
    %52 = arith.addf %51, %37 : tensor<512xf32, #blocked>
    %53 = arith.addf %52, %43 : tensor<512xf32, #blocked>
    %54 = arith.addf %53, %50 : tensor<512xf32, #blocked>
    scf.yield %54
  }
  %55 = scf.for %24, %n, %1, %25 : tensor<512xf32, #blocked> {
  ^bb0(%56: i32, %57: tensor<512xf32, #blocked>):
    %58 = tt.splat %56 : tensor<512xi32, #blocked>
    %59 = arith.addi %58, %3 : tensor<512xi32, #blocked>
    %60 = arith.cmpi %59, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %61 = tt.addptr %4, %59 : tensor<512x!tt.ptr<f32>, #blocked>
    %62 = tt.load %61, %60, %6 : tensor<512xf32, #blocked>
    %63 = arith.addf %57, %62 : tensor<512xf32, #blocked>
    scf.yield %63
  }
  %64 = tt.reduce %55 {axis = 0} : f32 {
  ^bb0(%65: f32, %66: f32):
    %67 = arith.addf %65, %66 : f32
    tt.reduce.return %67
  }
  tt.store %out, %64
  tt.return
}
