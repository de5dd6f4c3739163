// select on a constant condition, addptr of 0, and loads/stores whose mask is all true.
tt.func public @kernel(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %c: i1) {
  %true = arith.constant {value = true} : tensor<16xi1>
  %false = arith.constant {value = false} : i1
  %zero = arith.constant {value = 0} : tensor<16xi32>
  %other = arith.constant {value = 0.0} : tensor<16xf32>
  %0 = tt.splat %p : tensor<16x!tt.ptr<f32>>
  %1 = tt.addptr %0, %zero : tensor<16x!tt.ptr<f32>>
  %2 = tt.load %1, %true, %other : tensor<16xf32>
  %3 = arith.select %false, %q, %p : !tt.ptr<f32>
  %4 = tt.splat %3 : tensor<16x!tt.ptr<f32>>
  tt.store %4, %2, %true
  %5 = arith.select %c, %p, %p : !tt.ptr<f32>
  %6 = tt.splat %5 : tensor<16x!tt.ptr<f32>>
  tt.store %6, %2
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>, %c: i1) {
  %0 = arith.constant {value = true} : tensor<16xi1>
  %1 = arith.constant {value = false} : i1
  %2 = arith.constant {value = 0} : tensor<16xi32>
  %3 = arith.constant {value = 0.0} : tensor<16xf32>
  %4 = tt.splat %p : tensor<16x!tt.ptr<f32>>
  %5 = tt.load %4 : tensor<16xf32>
  %6 = tt.splat %p : tensor<16x!tt.ptr<f32>>
  tt.store %6, %5
  %7 = tt.splat %p : tensor<16x!tt.ptr<f32>>
  tt.store %7, %5
  tt.return
}
