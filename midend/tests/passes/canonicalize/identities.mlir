// x + 0, x * 1, x | 0 give x; x * 0 and x & 0 give 0 (integers only: x * 0.0 stays).
tt.func private @identities(%x: tensor<64xi32>, %f: f32) -> (tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, f32) {
  %zero = arith.constant {value = 0} : tensor<64xi32>
  %one = arith.constant {value = 1} : tensor<64xi32>
  %fzero = arith.constant {value = 0.0} : f32
  %0 = arith.addi %zero, %x : tensor<64xi32>
  %1 = arith.muli %x, %one : tensor<64xi32>
  %2 = arith.muli %x, %zero : tensor<64xi32>
  %3 = arith.ori %x, %zero : tensor<64xi32>
  %4 = arith.subi %x, %zero : tensor<64xi32>
  %5 = arith.mulf %f, %fzero : f32
  tt.return %0, %1, %2, %3, %4, %5
}
// ----- expected
tt.func private @identities(%x: tensor<64xi32>, %f: f32) -> (tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, f32) {
  %0 = arith.constant {value = 0} : tensor<64xi32>
  %1 = arith.constant {value = 1} : tensor<64xi32>
  %2 = arith.constant {value = 0.0} : f32
  %3 = arith.constant {value = 0} : tensor<64xi32>
  %4 = arith.mulf %f, %2 : f32
  tt.return %x, %x, %3, %x, %x, %4
}
