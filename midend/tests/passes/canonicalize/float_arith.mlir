// Float arithmetic folds for f32 (rounded to f32, one rounding per op) and f64; f16 stays.
// Comparisons follow the ordered/unordered predicates; maxnumf skips a NaN.
tt.func private @floats() -> (f32, f64, f16, i1, i1, f32, f32, f32) {
  %a = arith.constant {value = 0.1} : f32
  %b = arith.constant {value = 0.2} : f32
  %da = arith.constant {value = 0.1} : f64
  %db = arith.constant {value = 0.2} : f64
  %ha = arith.constant {value = 0.5} : f16
  %nan = arith.constant {value = nan} : f32
  %one = arith.constant {value = 1.0} : f32
  %0 = arith.addf %a, %b : f32
  %1 = arith.addf %da, %db : f64
  %2 = arith.addf %ha, %ha : f16
  %3 = arith.cmpf %nan, %one {predicate = "olt"} : i1
  %4 = arith.cmpf %nan, %one {predicate = "une"} : i1
  %5 = arith.maxnumf %nan, %one : f32
  %6 = arith.maximumf %nan, %one : f32
  %7 = arith.negf %a : f32
  tt.return %0, %1, %2, %3, %4, %5, %6, %7
}
// ----- expected
tt.func private @floats() -> (f32, f64, f16, i1, i1, f32, f32, f32) {
  %0 = arith.constant {value = 0.1} : f32
  %1 = arith.constant {value = 0.2} : f32
  %2 = arith.constant {value = 0.1} : f64
  %3 = arith.constant {value = 0.2} : f64
  %4 = arith.constant {value = 0.5} : f16
  %5 = arith.constant {value = nan} : f32
  %6 = arith.constant {value = 1.0} : f32
  %7 = arith.constant {value = 0.30000001192092896} : f32
  %8 = arith.constant {value = 0.30000000000000004} : f64
  %9 = arith.addf %4, %4 : f16
  %10 = arith.constant {value = false} : i1
  %11 = arith.constant {value = true} : i1
  %12 = arith.constant {value = 1.0} : f32
  %13 = arith.constant {value = nan} : f32
  %14 = arith.constant {value = -0.10000000149011612} : f32
  tt.return %7, %8, %9, %10, %11, %12, %13, %14
}
