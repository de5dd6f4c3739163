// Equal pure ops merge; an op in a loop body reuses one from the enclosing block, but an op
// after the loop never reuses one from inside it. Different attributes, types or effects keep
// ops apart (loads are never merged).
tt.func public @kernel(%p: tensor<128x!tt.ptr<f32>>, %n: i32) {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %r0 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %r1 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %r2 = tt.splat %n : tensor<64xi32>
  %s0 = tt.splat %n : tensor<128xi32>
  %s1 = tt.splat %n : tensor<128xi32>
  %m0 = arith.cmpi %r0, %s0 {predicate = "slt"} : tensor<128xi1>
  %m1 = arith.cmpi %r1, %s1 {predicate = "slt"} : tensor<128xi1>
  %m2 = arith.cmpi %r1, %s1 {predicate = "sle"} : tensor<128xi1>
  %l0 = tt.load %p, %m0 : tensor<128xf32>
  %l1 = tt.load %p, %m1 : tensor<128xf32>
  scf.for %c0, %n, %c1 {
  ^bb0(%i: i32):
    %c1_in = arith.constant {value = 1} : i32
    %sq_in = arith.muli %n, %n : i32
    %inner = tt.splat %i : tensor<128xi32>
    %sum = arith.addi %r1, %inner : tensor<128xi32>
    %again = arith.addi %r0, %inner : tensor<128xi32>
    %x = arith.sitofp %sum : tensor<128xf32>
    %y = arith.sitofp %again : tensor<128xf32>
    tt.store %p, %x, %m1
    tt.store %p, %y, %m2
    tt.print %sq_in {prefix = "", hex = false}
    scf.yield
  }
  %sq_out = arith.muli %n, %n : i32
  tt.print %sq_out {prefix = "", hex = false}
  %after = tt.splat %c1 : tensor<128xi32>
  %w = arith.addi %r0, %after : tensor<128xi32>
  %z = arith.sitofp %w : tensor<128xf32>
  tt.store %p, %z
  tt.store %p, %l0
  tt.store %p, %l1
  tt.print %r2 {prefix = "", hex = false}
  tt.return
}
// ----- expected
tt.func public @kernel(%p: tensor<128x!tt.ptr<f32>>, %n: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 1} : i32
  %2 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %3 = tt.splat %n : tensor<64xi32>
  %4 = tt.splat %n : tensor<128xi32>
  %5 = arith.cmpi %2, %4 {predicate = "slt"} : tensor<128xi1>
  %6 = arith.cmpi %2, %4 {predicate = "sle"} : tensor<128xi1>
  %7 = tt.load %p, %5 : tensor<128xf32>
  %8 = tt.load %p, %5 : tensor<128xf32>
  scf.for %0, %n, %1 {
  ^bb0(%9: i32):
    %10 = arith.muli %n, %n : i32
    %11 = tt.splat %9 : tensor<128xi32>
    %12 = arith.addi %2, %11 : tensor<128xi32>
    %13 = arith.sitofp %12 : tensor<128xf32>
    tt.store %p, %13, %5
    tt.store %p, %13, %6
    tt.print %10 {prefix = "", hex = false}
    scf.yield
  }
  %14 = arith.muli %n, %n : i32
  tt.print %14 {prefix = "", hex = false}
  %15 = tt.splat %1 : tensor<128xi32>
  %16 = arith.addi %2, %15 : tensor<128xi32>
  %17 = arith.sitofp %16 : tensor<128xf32>
  tt.store %p, %17
  tt.store %p, %7
  tt.store %p, %8
  tt.print %3 {prefix = "", hex = false}
  tt.return
}
