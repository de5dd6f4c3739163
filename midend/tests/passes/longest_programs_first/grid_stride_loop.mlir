// A grid-stride loop (`range(pid, n, num_programs)`) runs as many iterations in every program,
// give or take one: the kernel keeps its numbering.
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32) {
  %pid = tt.get_program_id {axis = 0} : i32
  %np = tt.get_num_programs {axis = 0} : i32
  %init = arith.constant {value = 0.0} : f32
  %a = scf.for %pid, %n, %np, %init : f32 {
  ^bb0(%i: i32, %acc: f32):
    %one = arith.constant {value = 1.0} : f32
    %s = arith.addf %acc, %one : f32
    scf.yield %s
  }
  %q = tt.addptr %p, %pid : !tt.ptr<f32>
  tt.store %q, %a
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.get_num_programs {axis = 0} : i32
  %2 = arith.constant {value = 0.0} : f32
  %3 = scf.for %0, %n, %1, %2 : f32 {
  ^bb0(%4: i32, %5: f32):
    %6 = arith.constant {value = 1.0} : f32
    %7 = arith.addf %5, %6 : f32
    scf.yield %7
  }
  %8 = tt.addptr %p, %0 : !tt.ptr<f32>
  tt.store %8, %3
  tt.return
}
