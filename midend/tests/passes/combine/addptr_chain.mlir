// addptr(addptr(p, i), j) becomes addptr(p, i + j) when the offsets have one type; a chain of
// three collapses completely. Offsets of different types stay apart.
tt.func private @ptrs(%p: tensor<8x!tt.ptr<f32>>, %i: tensor<8xi32>, %j: tensor<8xi32>, %k: tensor<8xi32>, %l: tensor<8xi64>) -> (tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>) {
  %0 = tt.addptr %p, %i : tensor<8x!tt.ptr<f32>>
  %1 = tt.addptr %0, %j : tensor<8x!tt.ptr<f32>>
  %2 = tt.addptr %1, %k : tensor<8x!tt.ptr<f32>>
  %3 = tt.addptr %0, %l : tensor<8x!tt.ptr<f32>>
  tt.return %2, %3
}
// ----- expected
tt.func private @ptrs(%p: tensor<8x!tt.ptr<f32>>, %i: tensor<8xi32>, %j: tensor<8xi32>, %k: tensor<8xi32>, %l: tensor<8xi64>) -> (tensor<8x!tt.ptr<f32>>, tensor<8x!tt.ptr<f32>>) {
  %0 = tt.addptr %p, %i : tensor<8x!tt.ptr<f32>>
  %1 = arith.addi %i, %j : tensor<8xi32>
  %2 = tt.addptr %p, %1 : tensor<8x!tt.ptr<f32>>
  %3 = arith.addi %1, %k : tensor<8xi32>
  %4 = tt.addptr %p, %3 : tensor<8x!tt.ptr<f32>>
  %5 = tt.addptr %0, %l : tensor<8x!tt.ptr<f32>>
  tt.return %4, %5
}
