// Loops. The induction variable of for(0, k, 32) is divisible by gcd(2^30, 32) = 32. The pointer
// iter arg starts contiguous over 64 and 16-byte aligned and advances by 64 elements (256 bytes):
// the fixed point keeps [64], 16 bytes. The offset starts at 0 and grows by 4: divisible by 4
// after the meet (two rounds). The hinted argument (tt.divisibility_arg3) reads 16 inside the
// body, but the loop's result is the meet of the init (16) and what the body yields (16 + m: 1).
// scf.if: the meet of both yields (64 and 16 -> 16). scf.while: the after region and the
// results see exactly what scf.condition forwards.
tt.func public @loop(%p: !tt.ptr<f32> {tt.divisibility = 16}, %k: i32 {tt.divisibility = 16}, %m: i32, %c: i1) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %1 = tt.splat %p : tensor<64x!tt.ptr<f32>>
  %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>
  %3 = arith.constant {value = 0} : i32
  %4 = arith.constant {value = 32} : i32
  %5 = arith.constant {value = 4} : i32
  %6 = arith.constant {value = 64} : tensor<64xi32>
  %7, %8, %9 = scf.for %3, %k, %4, %2, %3, %k {tt.divisibility_arg3 = [16]} : tensor<64x!tt.ptr<f32>>, i32, i32 {
  ^bb0(%10: i32, %11: tensor<64x!tt.ptr<f32>>, %12: i32, %13: i32):
    %14 = tt.load %11 : tensor<64xf32>
    %15 = tt.addptr %11, %6 : tensor<64x!tt.ptr<f32>>
    %16 = arith.addi %12, %5 : i32
    %17 = arith.addi %13, %m : i32
    scf.yield %15, %16, %17
  }
  %18 = scf.if %c : i32 {
    %19 = arith.constant {value = 64} : i32
    scf.yield %19
  } else {
    scf.yield %k
  }
  %20 = scf.while %k : i32 {
  ^bb0(%21: i32):
    %22 = arith.cmpi %21, %m {predicate = "slt"} : i1
    %23 = arith.addi %21, %4 : i32
    scf.condition %22, %23
  } do {
  ^bb0(%24: i32):
    scf.yield %24
  }
  tt.return
}
// ----- expected
tt.func public @loop(%p: !tt.ptr<f32> {tt.divisibility = 16}, %k: i32 {tt.divisibility = 16}, %m: i32, %c: i1) {
  // %p: contiguity = [1], divisibility = [16], constancy = [1]
  // %k: contiguity = [1], divisibility = [16], constancy = [1]
  // %m: contiguity = [1], divisibility = [1], constancy = [1]
  // %c: contiguity = [1], divisibility = [1], constancy = [1]
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  // %0: contiguity = [64], divisibility = [1073741824], constancy = [1]
  %1 = tt.splat %p : tensor<64x!tt.ptr<f32>>
  // %1: contiguity = [1], divisibility = [16], constancy = [64]
  %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>
  // %2: contiguity = [64], divisibility = [16], constancy = [1]
  %3 = arith.constant {value = 0} : i32
  // %3: contiguity = [1], divisibility = [1073741824], constancy = [1], constant = 0
  %4 = arith.constant {value = 32} : i32
  // %4: contiguity = [1], divisibility = [32], constancy = [1], constant = 32
  %5 = arith.constant {value = 4} : i32
  // %5: contiguity = [1], divisibility = [4], constancy = [1], constant = 4
  %6 = arith.constant {value = 64} : tensor<64xi32>
  // %6: contiguity = [1], divisibility = [64], constancy = [64], constant = 64
  %7, %8, %9 = scf.for %3, %k, %4, %2, %3, %k {tt.divisibility_arg3 = [16]} : tensor<64x!tt.ptr<f32>>, i32, i32 {
  // %7: contiguity = [64], divisibility = [16], constancy = [1]
  // %8: contiguity = [1], divisibility = [4], constancy = [1]
  // %9: contiguity = [1], divisibility = [1], constancy = [1]
  ^bb0(%10: i32, %11: tensor<64x!tt.ptr<f32>>, %12: i32, %13: i32):
  // %10: contiguity = [1], divisibility = [32], constancy = [1]
  // %11: contiguity = [64], divisibility = [16], constancy = [1]
  // %12: contiguity = [1], divisibility = [4], constancy = [1]
  // %13: contiguity = [1], divisibility = [16], constancy = [1]
    %14 = tt.load %11 : tensor<64xf32>
    %15 = tt.addptr %11, %6 : tensor<64x!tt.ptr<f32>>
    // %15: contiguity = [64], divisibility = [16], constancy = [1]
    %16 = arith.addi %12, %5 : i32
    // %16: contiguity = [1], divisibility = [4], constancy = [1]
    %17 = arith.addi %13, %m : i32
    // %17: contiguity = [1], divisibility = [1], constancy = [1]
    scf.yield %15, %16, %17
  }
  %18 = scf.if %c : i32 {
  // %18: contiguity = [1], divisibility = [16], constancy = [1]
    %19 = arith.constant {value = 64} : i32
    // %19: contiguity = [1], divisibility = [64], constancy = [1], constant = 64
    scf.yield %19
  } else {
    scf.yield %k
  }
  %20 = scf.while %k : i32 {
  // %20: contiguity = [1], divisibility = [16], constancy = [1]
  ^bb0(%21: i32):
  // %21: contiguity = [1], divisibility = [16], constancy = [1]
    %22 = arith.cmpi %21, %m {predicate = "slt"} : i1
    // %22: contiguity = [1], divisibility = [1], constancy = [1]
    %23 = arith.addi %21, %4 : i32
    // %23: contiguity = [1], divisibility = [16], constancy = [1]
    scf.condition %22, %23
  } do {
  ^bb0(%24: i32):
  // %24: contiguity = [1], divisibility = [16], constancy = [1]
    scf.yield %24
  }
  tt.return
}
