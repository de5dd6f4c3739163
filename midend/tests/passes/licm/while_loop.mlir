// Both regions of an scf.while are loop bodies: invariant ops leave either of them.
tt.func private @countdown(%n: i32, %k: i32) -> (i32) {
  %0 = scf.while %n : i32 {
  ^bb0(%a: i32):
    %zero = arith.constant {value = 0} : i32
    %go = arith.cmpi %a, %zero {predicate = "sgt"} : i1
    scf.condition %go, %a
  } do {
  ^bb0(%b: i32):
    %step = arith.muli %k, %k : i32
    %next = arith.subi %b, %step : i32
    scf.yield %next
  }
  tt.return %0
}
// ----- expected
tt.func private @countdown(%n: i32, %k: i32) -> (i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.muli %k, %k : i32
  %2 = scf.while %n : i32 {
  ^bb0(%3: i32):
    %4 = arith.cmpi %3, %0 {predicate = "sgt"} : i1
    scf.condition %4, %3
  } do {
  ^bb0(%5: i32):
    %6 = arith.subi %5, %1 : i32
    scf.yield %6
  }
  tt.return %2
}
