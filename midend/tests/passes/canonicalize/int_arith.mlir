// Integer arithmetic on constants folds, wrapping to the result type's width and signedness.
// Division by zero and out-of-range shifts stay.
tt.func private @ints() -> (i32, i32, i8, u8, u32, i32, i32, u32, i32, i32, i1, i1, i64, i32, i32) {
  %c7 = arith.constant {value = 7} : i32
  %cm7 = arith.constant {value = -7} : i32
  %c2 = arith.constant {value = 2} : i32
  %c0 = arith.constant {value = 0} : i32
  %cm1 = arith.constant {value = -1} : i32
  %c40 = arith.constant {value = 40} : i32
  %i8max = arith.constant {value = 127} : i8
  %i8one = arith.constant {value = 1} : i8
  %u8max = arith.constant {value = 255} : u8
  %u8one = arith.constant {value = 1} : u8
  %u0 = arith.constant {value = 0} : u32
  %u1 = arith.constant {value = 1} : u32
  %big = arith.constant {value = 4294967296} : i64
  %0 = arith.muli %c7, %c2 : i32
  %1 = arith.subi %0, %c7 : i32
  %2 = arith.addi %i8max, %i8one : i8
  %3 = arith.addi %u8max, %u8one : u8
  %4 = arith.subi %u0, %u1 : u32
  %5 = arith.divsi %cm7, %c2 : i32
  %6 = arith.remsi %cm7, %c2 : i32
  %7 = arith.divui %4, %u1 : u32
  %8 = arith.divsi %c7, %c0 : i32
  %9 = arith.shli %c7, %c40 : i32
  %10 = arith.cmpi %cm1, %c2 {predicate = "slt"} : i1
  %11 = arith.cmpi %cm1, %c2 {predicate = "ult"} : i1
  %12 = arith.muli %big, %big : i64
  %13 = arith.divui %cm1, %c2 : i32
  %14 = arith.shrsi %cm7, %c2 : i32
  tt.return %1, %0, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14
}
// ----- expected
tt.func private @ints() -> (i32, i32, i8, u8, u32, i32, i32, u32, i32, i32, i1, i1, i64, i32, i32) {
  %0 = arith.constant {value = 7} : i32
  %1 = arith.constant {value = -7} : i32
  %2 = arith.constant {value = 2} : i32
  %3 = arith.constant {value = 0} : i32
  %4 = arith.constant {value = -1} : i32
  %5 = arith.constant {value = 40} : i32
  %6 = arith.constant {value = 127} : i8
  %7 = arith.constant {value = 1} : i8
  %8 = arith.constant {value = 255} : u8
  %9 = arith.constant {value = 1} : u8
  %10 = arith.constant {value = 0} : u32
  %11 = arith.constant {value = 1} : u32
  %12 = arith.constant {value = 4294967296} : i64
  %13 = arith.constant {value = 14} : i32
  %14 = arith.constant {value = 7} : i32
  %15 = arith.constant {value = -128} : i8
  %16 = arith.constant {value = 0} : u8
  %17 = arith.constant {value = 4294967295} : u32
  %18 = arith.constant {value = -3} : i32
  %19 = arith.constant {value = -1} : i32
  %20 = arith.constant {value = 4294967295} : u32
  %21 = arith.divsi %0, %3 : i32
  %22 = arith.shli %0, %5 : i32
  %23 = arith.constant {value = true} : i1
  %24 = arith.constant {value = false} : i1
  %25 = arith.constant {value = 0} : i64
  %26 = arith.constant {value = 2147483647} : i32
  %27 = arith.constant {value = -2} : i32
  tt.return %14, %13, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27
}
