// A kernel that prints keeps its numbering (its lines show program ids), though its loop runs
// longer for later programs.
tt.func public @kernel(%p: !tt.ptr<f32>) {
  %c0 = arith.constant {value = 0} : i32
  %c16 = arith.constant {value = 16} : i32
  %pid = tt.get_program_id {axis = 0} : i32
  %hi = arith.muli %pid, %c16 : i32
  %init = arith.constant {value = 0.0} : f32
  %a = scf.for %c0, %hi, %c16, %init : f32 {
  ^bb0(%i: i32, %acc: f32):
    %one = arith.constant {value = 1.0} : f32
    %s = arith.addf %acc, %one : f32
    scf.yield %s
  }
  tt.print %a {prefix = "a", hex = false}
  %q = tt.addptr %p, %pid : !tt.ptr<f32>
  tt.store %q, %a
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 16} : i32
  %2 = tt.get_program_id {axis = 0} : i32
  %3 = arith.muli %2, %1 : i32
  %4 = arith.constant {value = 0.0} : f32
  %5 = scf.for %0, %3, %1, %4 : f32 {
  ^bb0(%6: i32, %7: f32):
    %8 = arith.constant {value = 1.0} : f32
    %9 = arith.addf %7, %8 : f32
    scf.yield %9
  }
  tt.print %5 {prefix = "a", hex = false}
  %10 = tt.addptr %p, %2 : !tt.ptr<f32>
  tt.store %10, %5
  tt.return
}
