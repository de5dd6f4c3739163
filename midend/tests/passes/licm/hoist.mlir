// Pure ops whose operands come from outside the loop move before it, in order, through nested
// loops; ops that depend on the induction variable or carried values, loads, stores, ops in an
// scf.if of the body, and integer divisions stay.
tt.func public @kernel(%p: tensor<64x!tt.ptr<f32>>, %n: i32, %m: i32) {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %init = arith.constant {value = 0.0} : tensor<64xf32>
  %0 = scf.for %c0, %n, %c1, %init : tensor<64xf32> {
  ^bb0(%i: i32, %acc: tensor<64xf32>):
    %range = tt.make_range {start = 0, end = 64} : tensor<64xi32>
    %nm = arith.muli %n, %m : i32
    %splat = tt.splat %nm : tensor<64xi32>
    %offs = arith.addi %range, %splat : tensor<64xi32>
    %q = arith.divsi %n, %m : i32
    %ptrs = tt.addptr %p, %offs : tensor<64x!tt.ptr<f32>>
    %x = tt.load %ptrs : tensor<64xf32>
    %iv = tt.splat %i : tensor<64xi32>
    %shift = arith.addi %offs, %iv : tensor<64xi32>
    %inner = scf.for %c0, %m, %c1, %x : tensor<64xf32> {
    ^bb0(%j: i32, %acc2: tensor<64xf32>):
      %two = arith.constant {value = 2.0} : tensor<64xf32>
      %scaled_offs = arith.sitofp %shift : tensor<64xf32>
      %t = arith.mulf %acc2, %two : tensor<64xf32>
      %u = arith.addf %t, %scaled_offs : tensor<64xf32>
      scf.yield %u
    }
    %big = arith.cmpi %i, %q {predicate = "sgt"} : i1
    %next = scf.if %big : tensor<64xf32> {
      %three = arith.constant {value = 3.0} : tensor<64xf32>
      %v = arith.addf %inner, %three : tensor<64xf32>
      scf.yield %v
    } else {
      scf.yield %inner
    }
    %sum = arith.addf %acc, %next : tensor<64xf32>
    scf.yield %sum
  }
  tt.store %p, %0
  tt.return
}
// ----- expected
tt.func public @kernel(%p: tensor<64x!tt.ptr<f32>>, %n: i32, %m: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 1} : i32
  %2 = arith.constant {value = 0.0} : tensor<64xf32>
  %3 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %4 = arith.muli %n, %m : i32
  %5 = tt.splat %4 : tensor<64xi32>
  %6 = arith.addi %3, %5 : tensor<64xi32>
  %7 = tt.addptr %p, %6 : tensor<64x!tt.ptr<f32>>
  %8 = arith.constant {value = 2.0} : tensor<64xf32>
  %9 = scf.for %0, %n, %1, %2 : tensor<64xf32> {
  ^bb0(%10: i32, %11: tensor<64xf32>):
    %12 = arith.divsi %n, %m : i32
    %13 = tt.load %7 : tensor<64xf32>
    %14 = tt.splat %10 : tensor<64xi32>
    %15 = arith.addi %6, %14 : tensor<64xi32>
    %16 = arith.sitofp %15 : tensor<64xf32>
    %17 = scf.for %0, %m, %1, %13 : tensor<64xf32> {
    ^bb0(%18: i32, %19: tensor<64xf32>):
      %20 = arith.mulf %19, %8 : tensor<64xf32>
      %21 = arith.addf %20, %16 : tensor<64xf32>
      scf.yield %21
    }
    %22 = arith.cmpi %10, %12 {predicate = "sgt"} : i1
    %23 = scf.if %22 : tensor<64xf32> {
      %24 = arith.constant {value = 3.0} : tensor<64xf32>
      %25 = arith.addf %17, %24 : tensor<64xf32>
      scf.yield %25
    } else {
      scf.yield %17
    }
    %26 = arith.addf %11, %23 : tensor<64xf32>
    scf.yield %26
  }
  tt.store %p, %9
  tt.return
}
