// A matmul inner loop: the dot's zero accumulator is fused with the add, the pointer
// increments' splats leave the loop, and the always-true mask of a full tile is dropped.
tt.func public @matmul(%a_ptr: !tt.ptr<f16>, %b_ptr: !tt.ptr<f16>, %c_ptr: !tt.ptr<f32>, %k: i32) {
  %c0 = arith.constant {value = 0} : i32
  %c16 = arith.constant {value = 16} : i32
  %acc0 = arith.constant {value = 0.0} : tensor<16x16xf32>
  %range = tt.make_range {start = 0, end = 256} : tensor<256xi32>
  %offs = tt.reshape %range : tensor<16x16xi32>
  %a_base = tt.splat %a_ptr : tensor<16x16x!tt.ptr<f16>>
  %a_ptrs0 = tt.addptr %a_base, %offs : tensor<16x16x!tt.ptr<f16>>
  %b_base = tt.splat %b_ptr : tensor<16x16x!tt.ptr<f16>>
  %b_ptrs0 = tt.addptr %b_base, %offs : tensor<16x16x!tt.ptr<f16>>
  %acc, %a_ptrs, %b_ptrs = scf.for %c0, %k, %c16, %acc0, %a_ptrs0, %b_ptrs0 : tensor<16x16xf32>, tensor<16x16x!tt.ptr<f16>>, tensor<16x16x!tt.ptr<f16>> {
  ^bb0(%i: i32, %acc_in: tensor<16x16xf32>, %a_in: tensor<16x16x!tt.ptr<f16>>, %b_in: tensor<16x16x!tt.ptr<f16>>):
    %true = arith.constant {value = true} : tensor<16x16xi1>
    %a = tt.load %a_in, %true : tensor<16x16xf16>
    %b = tt.load %b_in : tensor<16x16xf16>
    %zero = arith.constant {value = 0.0} : tensor<16x16xf32>
    %d = tt.dot %a, %b, %zero {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<16x16xf32>
    %acc_next = arith.addf %acc_in, %d : tensor<16x16xf32>
    %step = tt.splat %c16 : tensor<16x16xi32>
    %a_next = tt.addptr %a_in, %step : tensor<16x16x!tt.ptr<f16>>
    %b_next = tt.addptr %b_in, %step : tensor<16x16x!tt.ptr<f16>>
    scf.yield %acc_next, %a_next, %b_next
  }
  %c_base = tt.splat %c_ptr : tensor<16x16x!tt.ptr<f32>>
  %c_ptrs = tt.addptr %c_base, %offs : tensor<16x16x!tt.ptr<f32>>
  tt.store %c_ptrs, %acc
  tt.return
}
// ----- expected
tt.func public @matmul(%a_ptr: !tt.ptr<f16>, %b_ptr: !tt.ptr<f16>, %c_ptr: !tt.ptr<f32>, %k: i32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 16} : i32
  %2 = arith.constant {value = 0.0} : tensor<16x16xf32>
  %3 = tt.make_range {start = 0, end = 256} : tensor<256xi32>
  %4 = tt.reshape %3 : tensor<16x16xi32>
  %5 = tt.splat %a_ptr : tensor<16x16x!tt.ptr<f16>>
  %6 = tt.addptr %5, %4 : tensor<16x16x!tt.ptr<f16>>
  %7 = tt.splat %b_ptr : tensor<16x16x!tt.ptr<f16>>
  %8 = tt.addptr %7, %4 : tensor<16x16x!tt.ptr<f16>>
  %9 = arith.constant {value = 16} : tensor<16x16xi32>
  %10, %11, %12 = scf.for %0, %k, %1, %2, %6, %8 : tensor<16x16xf32>, tensor<16x16x!tt.ptr<f16>>, tensor<16x16x!tt.ptr<f16>> {
  ^bb0(%13: i32, %14: tensor<16x16xf32>, %15: tensor<16x16x!tt.ptr<f16>>, %16: tensor<16x16x!tt.ptr<f16>>):
    %17 = tt.load %15 : tensor<16x16xf16>
    %18 = tt.load %16 : tensor<16x16xf16>
    %19 = tt.dot %17, %18, %14 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<16x16xf32>
    %20 = tt.addptr %15, %9 : tensor<16x16x!tt.ptr<f16>>
    %21 = tt.addptr %16, %9 : tensor<16x16x!tt.ptr<f16>>
    scf.yield %19, %20, %21
  }
  %22 = tt.splat %c_ptr : tensor<16x16x!tt.ptr<f32>>
  %23 = tt.addptr %22, %4 : tensor<16x16x!tt.ptr<f32>>
  tt.store %23, %10
  tt.return
}
