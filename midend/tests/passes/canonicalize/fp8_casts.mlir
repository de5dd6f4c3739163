// tt.fp_to_fp of a constant folds when the fp8 result is exact: zero (the `other` of an fp8
// load), 448 (e4m3's largest finite value), a subnormal; 0.1, a value past the largest finite
// one and infinity (fp8 conversions saturate) stay.
tt.func private @fp8_casts() -> (f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E5M2, f8E4M3FN, f8E4M3FN, f8E5M2) {
  %zero = arith.constant {value = 0.0} : f32
  %max = arith.constant {value = 448.0} : f32
  %tiny = arith.constant {value = 0.001953125} : f32
  %tenth = arith.constant {value = 0.1} : f32
  %big = arith.constant {value = 480.0} : f32
  %inf = arith.constant {value = inf} : f32
  %0 = tt.fp_to_fp %zero {rounding = "rtne"} : f8E4M3FN
  %1 = tt.fp_to_fp %max {rounding = "rtne"} : f8E4M3FN
  %2 = tt.fp_to_fp %tiny {rounding = "rtne"} : f8E4M3FN
  %3 = tt.fp_to_fp %tenth {rounding = "rtne"} : f8E5M2
  %4 = tt.fp_to_fp %big {rounding = "rtne"} : f8E4M3FN
  %5 = tt.fp_to_fp %tenth {rounding = "rtne"} : f8E4M3FN
  %6 = tt.fp_to_fp %inf {rounding = "rtne"} : f8E5M2
  tt.return %0, %1, %2, %3, %4, %5, %6
}
// ----- expected
tt.func private @fp8_casts() -> (f8E4M3FN, f8E4M3FN, f8E4M3FN, f8E5M2, f8E4M3FN, f8E4M3FN, f8E5M2) {
  %0 = arith.constant {value = 0.0} : f32
  %1 = arith.constant {value = 448.0} : f32
  %2 = arith.constant {value = 0.001953125} : f32
  %3 = arith.constant {value = 0.1} : f32
  %4 = arith.constant {value = 480.0} : f32
  %5 = arith.constant {value = inf} : f32
  %6 = arith.constant {value = 0.0} : f8E4M3FN
  %7 = arith.constant {value = 448.0} : f8E4M3FN
  %8 = arith.constant {value = 0.001953125} : f8E4M3FN
  %9 = tt.fp_to_fp %3 {rounding = "rtne"} : f8E5M2
  %10 = tt.fp_to_fp %4 {rounding = "rtne"} : f8E4M3FN
  %11 = tt.fp_to_fp %3 {rounding = "rtne"} : f8E4M3FN
  %12 = tt.fp_to_fp %5 {rounding = "rtne"} : f8E5M2
  tt.return %6, %7, %8, %9, %10, %11, %12
}
