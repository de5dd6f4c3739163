// select(c, load(p, c), o) becomes load(p, c, o). Not when a store lies between the load and
// the select (the load would move past it), nor when the masks differ.
tt.func public @kernel(%p: tensor<8x!tt.ptr<f32>>, %c: tensor<8xi1>, %d: tensor<8xi1>, %o: tensor<8xf32>) {
  %0 = tt.load %p, %c : tensor<8xf32>
  %1 = arith.select %c, %0, %o : tensor<8xf32>
  tt.store %p, %1
  %2 = tt.load %p, %c : tensor<8xf32>
  tt.store %p, %o
  %3 = arith.select %c, %2, %o : tensor<8xf32>
  tt.store %p, %3
  %4 = tt.load %p, %d : tensor<8xf32>
  %5 = arith.select %c, %4, %o : tensor<8xf32>
  tt.store %p, %5
  tt.return
}
// ----- expected
tt.func public @kernel(%p: tensor<8x!tt.ptr<f32>>, %c: tensor<8xi1>, %d: tensor<8xi1>, %o: tensor<8xf32>) {
  %0 = tt.load %p, %c, %o : tensor<8xf32>
  tt.store %p, %0
  %1 = tt.load %p, %c : tensor<8xf32>
  tt.store %p, %o
  %2 = arith.select %c, %1, %o : tensor<8xf32>
  tt.store %p, %2
  %3 = tt.load %p, %d : tensor<8xf32>
  %4 = arith.select %c, %3, %o : tensor<8xf32>
  tt.store %p, %4
  tt.return
}
