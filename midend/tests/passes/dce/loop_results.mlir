// An scf.for iteration argument whose result is unused and that only feeds its own yield slot
// is removed, with the computation feeding it; one that is read in the body stays. Unused
// scf.if results go; an scf.if left empty goes too.
tt.func public @kernel(%p: !tt.ptr<i32>, %n: i32, %c: i1) {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %f0, %f1, %f2 = scf.for %c0, %n, %c1, %c0, %c0, %c0 : i32, i32, i32 {
  ^bb0(%i: i32, %dead: i32, %read: i32, %used: i32):
    %d = arith.addi %dead, %i : i32
    %r = arith.addi %read, %c1 : i32
    tt.store %p, %read
    %u = arith.addi %used, %i : i32
    scf.yield %d, %r, %u
  }
  %g0, %g1 = scf.if %c : i32, i32 {
    %t = arith.muli %n, %n : i32
    scf.yield %t, %n
  } else {
    scf.yield %c0, %c1
  }
  tt.store %p, %f2
  scf.if %c {
    %z = arith.addi %n, %n : i32
    scf.yield
  } else {
  }
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<i32>, %n: i32, %c: i1) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 1} : i32
  %2, %3 = scf.for %0, %n, %1, %0, %0 : i32, i32 {
  ^bb0(%4: i32, %5: i32, %6: i32):
    %7 = arith.addi %5, %1 : i32
    tt.store %p, %5
    %8 = arith.addi %6, %4 : i32
    scf.yield %7, %8
  }
  tt.store %p, %3
  tt.return
}
