// Of an scf.if's results, the unused ones go with their yield operands; the used one stays.
tt.func public @kernel(%p: !tt.ptr<i32>, %c: i1, %x: i32, %y: i32) {
  %a, %b, %d = scf.if %c : i32, i32, i32 {
    %t = arith.muli %x, %y : i32
    scf.yield %t, %x, %y
  } else {
    %e = arith.addi %x, %y : i32
    scf.yield %y, %e, %x
  }
  tt.store %p, %b
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<i32>, %c: i1, %x: i32, %y: i32) {
  %0 = scf.if %c : i32 {
    scf.yield %x
  } else {
    %1 = arith.addi %x, %y : i32
    scf.yield %1
  }
  tt.store %p, %0
  tt.return
}
