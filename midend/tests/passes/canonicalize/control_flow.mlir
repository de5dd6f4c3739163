// scf.if on a constant condition is replaced by the taken region; an scf.for whose constant
// bounds give no iteration is replaced by its inits; a loop with unknown bounds stays.
tt.func private @control(%x: i32, %n: i32) -> (i32, i32, i32) {
  %true = arith.constant {value = true} : i1
  %false = arith.constant {value = false} : i1
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %c10 = arith.constant {value = 10} : i32
  %0 = scf.if %true : i32 {
    %a = arith.addi %x, %c1 : i32
    %b = arith.muli %a, %c1 : i32
    scf.yield %b
  } else {
    scf.yield %x
  }
  scf.if %false {
    tt.print %x {prefix = "never", hex = false}
  } else {
  }
  %1 = scf.for %c10, %c0, %c1, %x : i32 {
  ^bb0(%i: i32, %acc: i32):
    %s = arith.addi %acc, %i : i32
    scf.yield %s
  }
  %2 = scf.for %c0, %n, %c1, %x : i32 {
  ^bb0(%j: i32, %acc2: i32):
    %t = arith.addi %acc2, %c0 : i32
    scf.yield %t
  }
  tt.return %0, %1, %2
}
// ----- expected
tt.func private @control(%x: i32, %n: i32) -> (i32, i32, i32) {
  %0 = arith.constant {value = true} : i1
  %1 = arith.constant {value = false} : i1
  %2 = arith.constant {value = 0} : i32
  %3 = arith.constant {value = 1} : i32
  %4 = arith.constant {value = 10} : i32
  %5 = arith.addi %x, %3 : i32
  %6 = scf.for %2, %n, %3, %x : i32 {
  ^bb0(%7: i32, %8: i32):
    scf.yield %8
  }
  tt.return %5, %x, %6
}
