// A matmul A-tile pointer: a_ptr + rm[:, None] * stride_am + rk[None, :], f16 elements.
// By hand: rm = pid*64 + arange(64) is contiguous over 64, divisible by 64. rm[:, None] keeps
// [64, 1] contiguity and gets divisibility 1 on the new dim (its elements are not all aligned).
// Times the 16-divisible stride: no contiguity, divisible by 16 (dim 0: 1 * 16, as the run
// divisibility does not hold for every element; dim 1: 1 * 16). Broadcast along dim 1: constant
// over 32 there. rk[None, :] broadcast along dim 0: constant over 64 on dim 0, contiguous over 32
// on dim 1. The sum: contiguous over 32 along dim 1, divisible by gcd(16, 2^30) = 16 there; along
// dim 0 no run, divisibility gcd(16, 1) = 1. The pointers: [1, 32] contiguity, divisibility
// gcd(16, 1 * 2) = 2 bytes on dim 0 and gcd(16, 16 * 2) = 16 bytes on dim 1.
tt.func public @matmul_tile(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %stride_am: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 64} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %4 = tt.splat %2 : tensor<64xi32>
  %5 = arith.addi %4, %3 : tensor<64xi32>
  %6 = tt.make_range {start = 0, end = 32} : tensor<32xi32>
  %7 = tt.expand_dims %5 {axis = 1} : tensor<64x1xi32>
  %8 = tt.splat %stride_am : tensor<64x1xi32>
  %9 = arith.muli %7, %8 : tensor<64x1xi32>
  %10 = tt.expand_dims %6 {axis = 0} : tensor<1x32xi32>
  %11 = tt.broadcast %9 : tensor<64x32xi32>
  %12 = tt.broadcast %10 : tensor<64x32xi32>
  %13 = arith.addi %11, %12 : tensor<64x32xi32>
  %14 = tt.splat %a_ptr : tensor<64x32x!tt.ptr<f16>>
  %15 = tt.addptr %14, %13 : tensor<64x32x!tt.ptr<f16>>
  %16 = tt.load %15 : tensor<64x32xf16>
  %17 = tt.trans %15 {order = [1, 0]} : tensor<32x64x!tt.ptr<f16>>
  tt.return
}
// ----- expected
tt.func public @matmul_tile(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %stride_am: i32 {tt.divisibility = 16}) {
  // %a_ptr: contiguity = [1], divisibility = [16], constancy = [1]
  // %stride_am: contiguity = [1], divisibility = [16], constancy = [1]
  %0 = tt.get_program_id {axis = 0} : i32
  // %0: contiguity = [1], divisibility = [1], constancy = [1]
  %1 = arith.constant {value = 64} : i32
  // %1: contiguity = [1], divisibility = [64], constancy = [1], constant = 64
  %2 = arith.muli %0, %1 : i32
  // %2: contiguity = [1], divisibility = [64], constancy = [1]
  %3 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  // %3: contiguity = [64], divisibility = [1073741824], constancy = [1]
  %4 = tt.splat %2 : tensor<64xi32>
  // %4: contiguity = [1], divisibility = [64], constancy = [64]
  %5 = arith.addi %4, %3 : tensor<64xi32>
  // %5: contiguity = [64], divisibility = [64], constancy = [1]
  %6 = tt.make_range {start = 0, end = 32} : tensor<32xi32>
  // %6: contiguity = [32], divisibility = [1073741824], constancy = [1]
  %7 = tt.expand_dims %5 {axis = 1} : tensor<64x1xi32>
  // %7: contiguity = [64, 1], divisibility = [64, 1], constancy = [1, 1]
  %8 = tt.splat %stride_am : tensor<64x1xi32>
  // %8: contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 1]
  %9 = arith.muli %7, %8 : tensor<64x1xi32>
  // %9: contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]
  %10 = tt.expand_dims %6 {axis = 0} : tensor<1x32xi32>
  // %10: contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [1, 1]
  %11 = tt.broadcast %9 : tensor<64x32xi32>
  // %11: contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 32]
  %12 = tt.broadcast %10 : tensor<64x32xi32>
  // %12: contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [64, 1]
  %13 = arith.addi %11, %12 : tensor<64x32xi32>
  // %13: contiguity = [1, 32], divisibility = [1, 16], constancy = [1, 1]
  %14 = tt.splat %a_ptr : tensor<64x32x!tt.ptr<f16>>
  // %14: contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 32]
  %15 = tt.addptr %14, %13 : tensor<64x32x!tt.ptr<f16>>
  // %15: contiguity = [1, 32], divisibility = [2, 16], constancy = [1, 1]
  %16 = tt.load %15 : tensor<64x32xf16>
  %17 = tt.trans %15 {order = [1, 0]} : tensor<32x64x!tt.ptr<f16>>
  // %17: contiguity = [32, 1], divisibility = [16, 2], constancy = [1, 1]
  tt.return
}
