// Splats, broadcasts and expand_dims of constants become tensor constants; a broadcast of a
// splat becomes a splat; a broadcast to its own type is its operand.
tt.func private @shapes(%s: f32, %t: tensor<4x8xf32>) -> (tensor<8xi32>, tensor<4x8xi32>, tensor<1x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = arith.constant {value = 3} : i32
  %0 = tt.splat %c : tensor<8xi32>
  %1 = tt.expand_dims %0 {axis = 0} : tensor<1x8xi32>
  %2 = tt.broadcast %1 : tensor<4x8xi32>
  %3 = tt.splat %s : tensor<1x8xf32>
  %4 = tt.broadcast %3 : tensor<4x8xf32>
  %5 = tt.broadcast %t : tensor<4x8xf32>
  tt.return %0, %2, %1, %4, %5
}
// ----- expected
tt.func private @shapes(%s: f32, %t: tensor<4x8xf32>) -> (tensor<8xi32>, tensor<4x8xi32>, tensor<1x8xi32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = arith.constant {value = 3} : i32
  %1 = arith.constant {value = 3} : tensor<8xi32>
  %2 = arith.constant {value = 3} : tensor<1x8xi32>
  %3 = arith.constant {value = 3} : tensor<4x8xi32>
  %4 = tt.splat %s : tensor<1x8xf32>
  %5 = tt.splat %s : tensor<4x8xf32>
  tt.return %1, %3, %2, %5, %t
}
