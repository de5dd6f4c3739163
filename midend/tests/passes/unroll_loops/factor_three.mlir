// A loop with loop_unroll_factor 3 becomes a main loop running the body three times per
// iteration (iv, iv + step, iv + 2 step), up to lb + (max(ub - lb, 0) / (3 step)) * 3 step, then
// the original loop runs the remainder from there, starting from the main loop's results.
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32, %step: i32) {
  %zero = arith.constant {value = 0} : i32
  %init = arith.constant {value = 0.0} : f32
  %r = scf.for %zero, %n, %step, %init {tt.loop_unroll_factor = 3} : f32 {
  ^bb0(%i: i32, %acc: f32):
    %q = tt.addptr %p, %i : !tt.ptr<f32>
    %x = tt.load %q : f32
    %s = arith.addf %acc, %x : f32
    scf.yield %s
  }
  tt.store %p, %r
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32, %step: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 0.0} : f32
  %2 = arith.constant {value = 3} : i32
  %3 = arith.muli %step, %2 : i32
  %4 = arith.constant {value = 0} : i32
  %5 = arith.subi %n, %0 : i32
  %6 = arith.cmpi %5, %4 {predicate = "slt"} : i1
  %7 = arith.select %6, %4, %5 : i32
  %8 = arith.divsi %7, %3 : i32
  %9 = arith.muli %8, %3 : i32
  %10 = arith.addi %0, %9 : i32
  %11 = scf.for %0, %10, %3, %1 : f32 {
  ^bb0(%12: i32, %13: f32):
    %14 = tt.addptr %p, %12 : !tt.ptr<f32>
    %15 = tt.load %14 : f32
    %16 = arith.addf %13, %15 : f32
    %17 = arith.constant {value = 1} : i32
    %18 = arith.muli %step, %17 : i32
    %19 = arith.addi %12, %18 : i32
    %20 = tt.addptr %p, %19 : !tt.ptr<f32>
    %21 = tt.load %20 : f32
    %22 = arith.addf %16, %21 : f32
    %23 = arith.constant {value = 2} : i32
    %24 = arith.muli %step, %23 : i32
    %25 = arith.addi %12, %24 : i32
    %26 = tt.addptr %p, %25 : !tt.ptr<f32>
    %27 = tt.load %26 : f32
    %28 = arith.addf %22, %27 : f32
    scf.yield %28
  }
  %29 = scf.for %10, %n, %step, %11 : f32 {
  ^bb0(%30: i32, %31: f32):
    %32 = tt.addptr %p, %30 : !tt.ptr<f32>
    %33 = tt.load %32 : f32
    %34 = arith.addf %31, %33 : f32
    scf.yield %34
  }
  tt.store %p, %29
  tt.return
}
