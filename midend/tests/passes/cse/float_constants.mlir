// Float constants compare by bits: two NaNs merge, 0.0 and -0.0 stay apart.
tt.func private @floats() -> (f32, f32, f32, f32) {
  %0 = arith.constant {value = nan} : f32
  %1 = arith.constant {value = nan} : f32
  %2 = arith.constant {value = 0.0} : f32
  %3 = arith.constant {value = -0.0} : f32
  tt.return %0, %1, %2, %3
}
// ----- expected
tt.func private @floats() -> (f32, f32, f32, f32) {
  %0 = arith.constant {value = nan} : f32
  %1 = arith.constant {value = 0.0} : f32
  %2 = arith.constant {value = -0.0} : f32
  tt.return %0, %0, %1, %2
}
