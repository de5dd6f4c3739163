// Hints override computed facts. offs % M (M unknown) has no contiguity and divisibility 1;
// tl.max_contiguous(tl.multiple_of(offs % M, 128), 128) puts tt.divisibility and tt.contiguity
// on the remsi, which then reports them; tl.max_constancy on a load. A scalar parameter takes
// its tt.divisibility (a plain integer, as the frontend writes it) and its splat keeps it.
tt.func public @hints(%M: i32, %K: i32 {tt.divisibility = 8}, %p: !tt.ptr<i32>) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.splat %M : tensor<128xi32>
  %7 = arith.remsi %5, %6 : tensor<128xi32>
  %8 = arith.remsi %5, %6 {tt.divisibility = [128], tt.contiguity = [128]} : tensor<128xi32>
  %9 = tt.splat %K : tensor<128xi32>
  %10 = tt.splat %p : tensor<128x!tt.ptr<i32>>
  %11 = tt.addptr %10, %8 : tensor<128x!tt.ptr<i32>>
  %12 = tt.load %11 {tt.constancy = [4]} : tensor<128xi32>
  tt.return
}
// ----- expected
tt.func public @hints(%M: i32, %K: i32 {tt.divisibility = 8}, %p: !tt.ptr<i32>) {
  // %M: contiguity = [1], divisibility = [1], constancy = [1]
  // %K: contiguity = [1], divisibility = [8], constancy = [1]
  // %p: contiguity = [1], divisibility = [1], constancy = [1]
  %0 = tt.get_program_id {axis = 0} : i32
  // %0: contiguity = [1], divisibility = [1], constancy = [1]
  %1 = arith.constant {value = 128} : i32
  // %1: contiguity = [1], divisibility = [128], constancy = [1], constant = 128
  %2 = arith.muli %0, %1 : i32
  // %2: contiguity = [1], divisibility = [128], constancy = [1]
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  // %3: contiguity = [128], divisibility = [1073741824], constancy = [1]
  %4 = tt.splat %2 : tensor<128xi32>
  // %4: contiguity = [1], divisibility = [128], constancy = [128]
  %5 = arith.addi %4, %3 : tensor<128xi32>
  // %5: contiguity = [128], divisibility = [128], constancy = [1]
  %6 = tt.splat %M : tensor<128xi32>
  // %6: contiguity = [1], divisibility = [1], constancy = [128]
  %7 = arith.remsi %5, %6 : tensor<128xi32>
  // %7: contiguity = [1], divisibility = [1], constancy = [1]
  %8 = arith.remsi %5, %6 {tt.divisibility = [128], tt.contiguity = [128]} : tensor<128xi32>
  // %8: contiguity = [128], divisibility = [128], constancy = [1]
  %9 = tt.splat %K : tensor<128xi32>
  // %9: contiguity = [1], divisibility = [8], constancy = [128]
  %10 = tt.splat %p : tensor<128x!tt.ptr<i32>>
  // %10: contiguity = [1], divisibility = [1], constancy = [128]
  %11 = tt.addptr %10, %8 : tensor<128x!tt.ptr<i32>>
  // %11: contiguity = [128], divisibility = [1], constancy = [1]
  %12 = tt.load %11 {tt.constancy = [4]} : tensor<128xi32>
  // %12: contiguity = [1], divisibility = [1], constancy = [4]
  tt.return
}
