// Comparisons give constancy only. offs < n with n a multiple of 16 flips only at a multiple of
// 16: constant over 16; with n of unknown divisibility: over 1; n > offs likewise 16; offs == n
// never (it is true at one point). Two splats compare to a splat (constant over 256). A select
// between two ranges on a mask constant over 16 is contiguous over 16, its runs starting at
// multiples of 16. A masked load of a splat pointer is constant where pointer and mask are.
tt.func public @mask(%n: i32 {tt.divisibility = 16}, %m: i32, %p: !tt.ptr<i32> {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 256} : tensor<256xi32>
  %1 = tt.splat %n : tensor<256xi32>
  %2 = arith.cmpi %0, %1 {predicate = "slt"} : tensor<256xi1>
  %3 = tt.splat %m : tensor<256xi32>
  %4 = arith.cmpi %0, %3 {predicate = "slt"} : tensor<256xi1>
  %5 = arith.cmpi %1, %0 {predicate = "sgt"} : tensor<256xi1>
  %6 = arith.cmpi %0, %1 {predicate = "eq"} : tensor<256xi1>
  %7 = arith.cmpi %1, %3 {predicate = "slt"} : tensor<256xi1>
  %8 = arith.andi %2, %5 : tensor<256xi1>
  %9 = arith.constant {value = 256} : tensor<256xi32>
  %10 = arith.addi %0, %9 : tensor<256xi32>
  %11 = arith.select %2, %0, %10 : tensor<256xi32>
  %12 = tt.splat %p : tensor<256x!tt.ptr<i32>>
  %13 = tt.load %12, %2 : tensor<256xi32>
  tt.return
}
// ----- expected
tt.func public @mask(%n: i32 {tt.divisibility = 16}, %m: i32, %p: !tt.ptr<i32> {tt.divisibility = 16}) {
  // %n: contiguity = [1], divisibility = [16], constancy = [1]
  // %m: contiguity = [1], divisibility = [1], constancy = [1]
  // %p: contiguity = [1], divisibility = [16], constancy = [1]
  %0 = tt.make_range {start = 0, end = 256} : tensor<256xi32>
  // %0: contiguity = [256], divisibility = [1073741824], constancy = [1]
  %1 = tt.splat %n : tensor<256xi32>
  // %1: contiguity = [1], divisibility = [16], constancy = [256]
  %2 = arith.cmpi %0, %1 {predicate = "slt"} : tensor<256xi1>
  // %2: contiguity = [1], divisibility = [1], constancy = [16]
  %3 = tt.splat %m : tensor<256xi32>
  // %3: contiguity = [1], divisibility = [1], constancy = [256]
  %4 = arith.cmpi %0, %3 {predicate = "slt"} : tensor<256xi1>
  // %4: contiguity = [1], divisibility = [1], constancy = [1]
  %5 = arith.cmpi %1, %0 {predicate = "sgt"} : tensor<256xi1>
  // %5: contiguity = [1], divisibility = [1], constancy = [16]
  %6 = arith.cmpi %0, %1 {predicate = "eq"} : tensor<256xi1>
  // %6: contiguity = [1], divisibility = [1], constancy = [1]
  %7 = arith.cmpi %1, %3 {predicate = "slt"} : tensor<256xi1>
  // %7: contiguity = [1], divisibility = [1], constancy = [256]
  %8 = arith.andi %2, %5 : tensor<256xi1>
  // %8: contiguity = [1], divisibility = [1], constancy = [16]
  %9 = arith.constant {value = 256} : tensor<256xi32>
  // %9: contiguity = [1], divisibility = [256], constancy = [256], constant = 256
  %10 = arith.addi %0, %9 : tensor<256xi32>
  // %10: contiguity = [256], divisibility = [256], constancy = [1]
  %11 = arith.select %2, %0, %10 : tensor<256xi32>
  // %11: contiguity = [16], divisibility = [16], constancy = [1]
  %12 = tt.splat %p : tensor<256x!tt.ptr<i32>>
  // %12: contiguity = [1], divisibility = [16], constancy = [256]
  %13 = tt.load %12, %2 : tensor<256xi32>
  // %13: contiguity = [1], divisibility = [1], constancy = [16]
  tt.return
}
