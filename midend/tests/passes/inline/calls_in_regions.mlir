// Calls inside loop bodies and reduce combine regions are inlined too; cloned regions get
// fresh block arguments.
tt.func public @kernel(%p: !tt.ptr<f32>, %t: tensor<16xf32>, %n: i32) {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %init = arith.constant {value = 0.0} : f32
  %0 = scf.for %c0, %n, %c1, %init : f32 {
  ^bb0(%i: i32, %acc: f32):
    %r = tt.reduce %t {axis = 0} : f32 {
    ^bb0(%l: f32, %r: f32):
      %m = tt.call %l, %r {callee = "combine_max"} : f32
      tt.reduce.return %m
    }
    %s = tt.call %acc, %r {callee = "combine_max"} : f32
    scf.yield %s
  }
  tt.store %p, %0
  tt.return
}

tt.func private @combine_max(%a: f32, %b: f32) -> (f32) {
  %0 = arith.maxnumf %a, %b : f32
  tt.return %0
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>, %t: tensor<16xf32>, %n: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 1} : i32
  %2 = arith.constant {value = 0.0} : f32
  %3 = scf.for %0, %n, %1, %2 : f32 {
  ^bb0(%4: i32, %5: f32):
    %6 = tt.reduce %t {axis = 0} : f32 {
    ^bb0(%7: f32, %8: f32):
      %9 = arith.maxnumf %7, %8 : f32
      tt.reduce.return %9
    }
    %10 = arith.maxnumf %5, %6 : f32
    scf.yield %10
  }
  tt.store %p, %3
  tt.return
}
