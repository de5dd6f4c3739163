// Masks that may be false in a whole block stay: in a loop from a lower bound that is not a
// constant (its trips may wrap around) all of them; with columns twice as wide as the step, the
// last copy's (its columns reach past the trip, so past the bound in the last one), while the
// first three copies lose theirs. Both loops still load four blocks a trip.
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
  %7 = arith.constant {value = 4} : i32
  %8 = arith.muli %2, %7 : i32
  %9 = arith.constant {value = 0} : i32
  %10 = arith.subi %n, %lo : i32
  %11 = arith.cmpi %10, %9 {predicate = "slt"} : i1
  %12 = arith.select %11, %9, %10 : i32
  %13 = arith.divsi %12, %8 : i32
  %14 = arith.muli %13, %8 : i32
  %15 = arith.addi %lo, %14 : i32
  %16 = scf.for %lo, %15, %8, %6 : tensor<512xf32, #blocked> {
  ^bb0(%17: i32, %18: tensor<512xf32, #blocked>):
    %19 = tt.splat %17 : tensor<512xi32, #blocked>
    %20 = arith.addi %19, %3 : tensor<512xi32, #blocked>
    %21 = arith.cmpi %20, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %22 = tt.addptr %4, %20 : tensor<512x!tt.ptr<f32>, #blocked>
    %23 = tt.load %22, %21, %6 : tensor<512xf32, #blocked>
    %24 = arith.constant {value = 512} : i32
    %25 = arith.addi %17, %24 : i32
    %26 = tt.splat %25 : tensor<512xi32, #blocked>
    %27 = arith.addi %26, %3 : tensor<512xi32, #blocked>
    %28 = arith.cmpi %27, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %29 = tt.addptr %4, %27 : tensor<512x!tt.ptr<f32>, #blocked>
    %30 = tt.load %29, %28, %6 : tensor<512xf32, #blocked>
    %31 = arith.constant {value = 1024} : i32
    %32 = arith.addi %17, %31 : i32
    %33 = tt.splat %32 : tensor<512xi32, #blocked>
    %34 = arith.addi %33, %3 : tensor<512xi32, #blocked>
    %35 = arith.cmpi %34, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %36 = tt.addptr %4, %34 : tensor<512x!tt.ptr<f32>, #blocked>
    %37 = tt.load %36, %35, %6 : tensor<512xf32, #blocked>
    %38 = arith.constant {value = 1536} : i32
    %39 = arith.addi %17, %38 : i32
    %40 = tt.splat %39 : tensor<512xi32, #blocked>
    %41 = arith.addi %40, %3 : tensor<512xi32, #blocked>
    %42 = arith.cmpi %41, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %43 = tt.addptr %4, %41 : tensor<512x!tt.ptr<f32>, #blocked>
    %44 = tt.load %43, %42, %6 : tensor<512xf32, #blocked>
    %45 = arith.addf %18, %23 : tensor<512xf32, #blocked>
    %46 = arith.addf %45, %30 : tensor<512xf32, #blocked>
    %47 = arith.addf %46, %37 : tensor<512xf32, #blocked>
    %48 = arith.addf %47, %44 : tensor<512xf32, #blocked>
    scf.yield %48
  }
  %49 = scf.for %15, %n, %2, %16 : tensor<512xf32, #blocked> {
  ^bb0(%50: i32, %51: tensor<512xf32, #blocked>):
    %52 = tt.splat %50 : tensor<512xi32, #blocked>
    %53 = arith.addi %52, %3 : tensor<512xi32, #blocked>
    %54 = arith.cmpi %53, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %55 = tt.addptr %4, %53 : tensor<512x!tt.ptr<f32>, #blocked>
    %56 = tt.load %55, %54, %6 : tensor<512xf32, #blocked>
    %57 = arith.addf %51, %56 : tensor<512xf32, #blocked>
    scf.yield %57
  }
  %58 = arith.constant {value = 4} : i32
  %59 = arith.muli %1, %58 : i32
  %60 = arith.constant {value = 0} : i32
  %61 = arith.subi %n, %0 : i32
  %62 = arith.cmpi %61, %60 {predicate = "slt"} : i1
  %63 = arith.select %62, %60, %61 : i32
  %64 = arith.divsi %63, %59 : i32
  %65 = arith.muli %64, %59 : i32
  %66 = arith.addi %0, %65 : i32
  %67 = scf.for %0, %66, %59, %49 : tensor<512xf32, #blocked> {
  ^bb0(%68: i32, %69: tensor<512xf32, #blocked>):
    %70 = tt.splat %68 : tensor<512xi32, #blocked>
    %71 = arith.addi %70, %3 : tensor<512xi32, #blocked>
    %72 = tt.addptr %4, %71 : tensor<512x!tt.ptr<f32>, #blocked>
    %73 = tt.load %72 : tensor<512xf32, #blocked>
    %74 = arith.constant {value = 256} : i32
    %75 = arith.addi %68, %74 : i32
    %76 = tt.splat %75 : tensor<512xi32, #blocked>
    %77 = arith.addi %76, %3 : tensor<512xi32, #blocked>
    %78 = tt.addptr %4, %77 : tensor<512x!tt.ptr<f32>, #blocked>
    %79 = tt.load %78 : tensor<512xf32, #blocked>
    %80 = arith.constant {value = 512} : i32
    %81 = arith.addi %68, %80 : i32
    %82 = tt.splat %81 : tensor<512xi32, #blocked>
    %83 = arith.addi %82, %3 : tensor<512xi32, #blocked>
    %84 = tt.addptr %4, %83 : tensor<512x!tt.ptr<f32>, #blocked>
    %85 = tt.load %84 : tensor<512xf32, #blocked>
    %86 = arith.constant {value = 768} : i32
    %87 = arith.addi %68, %86 : i32
    %88 = tt.splat %87 : tensor<512xi32, #blocked>
    %89 = arith.addi %88, %3 : tensor<512xi32, #blocked>
    %90 = arith.cmpi %89, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %91 = tt.addptr %4, %89 : tensor<512x!tt.ptr<f32>, #blocked>
    %92 = tt.load %91, %90, %6 : tensor<512xf32, #blocked>
    %93 = arith.addf %69, %73 : tensor<512xf32, #blocked>
    %94 = arith.addf %93, %79 : tensor<512xf32, #blocked>
    %95 = arith.addf %94, %85 : tensor<512xf32, #blocked>
    %96 = arith.addf %95, %92 : tensor<512xf32, #blocked>
    scf.yield %96
  }
  %97 = scf.for %66, %n, %1, %67 : tensor<512xf32, #blocked> {
  ^bb0(%98: i32, %99: tensor<512xf32, #blocked>):
    %100 = tt.splat %98 : tensor<512xi32, #blocked>
    %101 = arith.addi %100, %3 : tensor<512xi32, #blocked>
    %102 = arith.cmpi %101, %5 {predicate = "slt"} : tensor<512xi1, #blocked>
    %103 = tt.addptr %4, %101 : tensor<512x!tt.ptr<f32>, #blocked>
    %104 = tt.load %103, %102, %6 : tensor<512xf32, #blocked>
    %105 = arith.addf %99, %104 : tensor<512xf32, #blocked>
    scf.yield %105
  }
  %106 = tt.reduce %97 {axis = 0} : f32 {
  ^bb0(%107: f32, %108: f32):
    %109 = arith.addf %107, %108 : f32
    tt.reduce.return %109
  }
  tt.store %out, %106
  tt.return
}
