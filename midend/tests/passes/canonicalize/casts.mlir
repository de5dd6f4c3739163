// Casts of constants fold when the result is exact (or rounds to f32); others stay.
tt.func private @casts() -> (i32, i32, i8, f32, f32, i32, i32, f32, f16, f16, u32) {
  %m1 = arith.constant {value = -1} : i8
  %c300 = arith.constant {value = 300} : i32
  %odd = arith.constant {value = 16777217} : i32
  %c3 = arith.constant {value = 3} : i32
  %f = arith.constant {value = 3.7} : f32
  %huge = arith.constant {value = 10000000000.0} : f32
  %d = arith.constant {value = 0.1} : f64
  %h = arith.constant {value = 1.5} : f32
  %tenth = arith.constant {value = 0.1} : f32
  %0 = arith.extsi %m1 : i32
  %1 = arith.extui %m1 : i32
  %2 = arith.trunci %c300 : i8
  %3 = arith.sitofp %odd : f32
  %4 = arith.sitofp %c3 : f32
  %5 = arith.fptosi %f : i32
  %6 = arith.fptosi %huge : i32
  %7 = arith.truncf %d : f32
  %8 = arith.truncf %h : f16
  %9 = arith.truncf %tenth : f16
  %10 = arith.fptoui %f : u32
  tt.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
}
// ----- expected
tt.func private @casts() -> (i32, i32, i8, f32, f32, i32, i32, f32, f16, f16, u32) {
  %0 = arith.constant {value = -1} : i8
  %1 = arith.constant {value = 300} : i32
  %2 = arith.constant {value = 16777217} : i32
  %3 = arith.constant {value = 3} : i32
  %4 = arith.constant {value = 3.7} : f32
  %5 = arith.constant {value = 10000000000.0} : f32
  %6 = arith.constant {value = 0.1} : f64
  %7 = arith.constant {value = 1.5} : f32
  %8 = arith.constant {value = 0.1} : f32
  %9 = arith.constant {value = -1} : i32
  %10 = arith.constant {value = 255} : i32
  %11 = arith.constant {value = 44} : i8
  %12 = arith.sitofp %2 : f32
  %13 = arith.constant {value = 3.0} : f32
  %14 = arith.constant {value = 3} : i32
  %15 = arith.fptosi %5 : i32
  %16 = arith.constant {value = 0.10000000149011612} : f32
  %17 = arith.constant {value = 1.5} : f16
  %18 = arith.truncf %8 : f16
  %19 = arith.constant {value = 3} : u32
  tt.return %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19
}
