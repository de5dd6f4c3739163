// Rows of 64 bytes (d32, f16) stay on the pointer path: the 32-bit row coordinate is proven only
// for rows of 128 bytes or more.
tt.func public @narrow_rows_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.make_range {start = 0, end = 32} : tensor<32xi32>
  %7 = tt.expand_dims %5 {axis = 1} : tensor<128x1xi32>
  %8 = arith.constant {value = 32} : tensor<128x1xi32>
  %9 = arith.muli %7, %8 : tensor<128x1xi32>
  %10 = tt.splat %q_ptr : tensor<128x1x!tt.ptr<f16>>
  %11 = tt.addptr %10, %9 : tensor<128x1x!tt.ptr<f16>>
  %12 = tt.expand_dims %6 {axis = 0} : tensor<1x32xi32>
  %13 = tt.broadcast %11 : tensor<128x32x!tt.ptr<f16>>
  %14 = tt.broadcast %12 : tensor<128x32xi32>
  %15 = tt.addptr %13, %14 : tensor<128x32x!tt.ptr<f16>>
  %16 = tt.load %15 : tensor<128x32xf16>
  %17 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %18 = arith.constant {value = 0} : i32
  %19 = arith.constant {value = 64} : i32
  %20 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %21 = arith.constant {value = 32} : tensor<64x1xi32>
  %22 = tt.splat %k_ptr : tensor<64x1x!tt.ptr<f16>>
  %23 = tt.broadcast %12 : tensor<64x32xi32>
  %24 = scf.for %18, %N_CTX, %19, %17 : tensor<128x64xf32> {
  ^bb0(%25: i32, %26: tensor<128x64xf32>):
    %27 = tt.splat %25 : tensor<64xi32>
    %28 = arith.addi %27, %20 : tensor<64xi32>
    %29 = tt.expand_dims %28 {axis = 1} : tensor<64x1xi32>
    %30 = arith.muli %29, %21 : tensor<64x1xi32>
    %31 = tt.addptr %22, %30 : tensor<64x1x!tt.ptr<f16>>
    %32 = tt.broadcast %31 : tensor<64x32x!tt.ptr<f16>>
    %33 = tt.addptr %32, %23 : tensor<64x32x!tt.ptr<f16>>
    %34 = tt.load %33 : tensor<64x32xf16>
    %35 = tt.trans %34 {order = [1, 0]} : tensor<32x64xf16>
    %36 = tt.dot %16, %35, %26 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    scf.yield %36
  }
  %37 = arith.constant {value = 64} : tensor<128x1xi32>
  %38 = arith.muli %7, %37 : tensor<128x1xi32>
  %39 = tt.splat %o_ptr : tensor<128x1x!tt.ptr<f16>>
  %40 = tt.addptr %39, %38 : tensor<128x1x!tt.ptr<f16>>
  %41 = tt.expand_dims %20 {axis = 0} : tensor<1x64xi32>
  %42 = tt.broadcast %40 : tensor<128x64x!tt.ptr<f16>>
  %43 = tt.broadcast %41 : tensor<128x64xi32>
  %44 = tt.addptr %42, %43 : tensor<128x64x!tt.ptr<f16>>
  %45 = arith.truncf %24 : tensor<128x64xf16>
  tt.store %44, %45
  tt.return
}
// ----- expected
tt.func public @narrow_rows_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.make_range {start = 0, end = 32} : tensor<32xi32>
  %7 = tt.expand_dims %5 {axis = 1} : tensor<128x1xi32>
  %8 = arith.constant {value = 32} : tensor<128x1xi32>
  %9 = arith.muli %7, %8 : tensor<128x1xi32>
  %10 = tt.splat %q_ptr : tensor<128x1x!tt.ptr<f16>>
  %11 = tt.addptr %10, %9 : tensor<128x1x!tt.ptr<f16>>
  %12 = tt.expand_dims %6 {axis = 0} : tensor<1x32xi32>
  %13 = tt.broadcast %11 : tensor<128x32x!tt.ptr<f16>>
  %14 = tt.broadcast %12 : tensor<128x32xi32>
  %15 = tt.addptr %13, %14 : tensor<128x32x!tt.ptr<f16>>
  %16 = tt.load %15 : tensor<128x32xf16>
  %17 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %18 = arith.constant {value = 0} : i32
  %19 = arith.constant {value = 64} : i32
  %20 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %21 = arith.constant {value = 32} : tensor<64x1xi32>
  %22 = tt.splat %k_ptr : tensor<64x1x!tt.ptr<f16>>
  %23 = tt.broadcast %12 : tensor<64x32xi32>
  %24 = scf.for %18, %N_CTX, %19, %17 : tensor<128x64xf32> {
  ^bb0(%25: i32, %26: tensor<128x64xf32>):
    %27 = tt.splat %25 : tensor<64xi32>
    %28 = arith.addi %27, %20 : tensor<64xi32>
    %29 = tt.expand_dims %28 {axis = 1} : tensor<64x1xi32>
    %30 = arith.muli %29, %21 : tensor<64x1xi32>
    %31 = tt.addptr %22, %30 : tensor<64x1x!tt.ptr<f16>>
    %32 = tt.broadcast %31 : tensor<64x32x!tt.ptr<f16>>
    %33 = tt.addptr %32, %23 : tensor<64x32x!tt.ptr<f16>>
    %34 = tt.load %33 : tensor<64x32xf16>
    %35 = tt.trans %34 {order = [1, 0]} : tensor<32x64xf16>
    %36 = tt.dot %16, %35, %26 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    scf.yield %36
  }
  %37 = arith.constant {value = 64} : tensor<128x1xi32>
  %38 = arith.muli %7, %37 : tensor<128x1xi32>
  %39 = tt.splat %o_ptr : tensor<128x1x!tt.ptr<f16>>
  %40 = tt.addptr %39, %38 : tensor<128x1x!tt.ptr<f16>>
  %41 = tt.expand_dims %20 {axis = 0} : tensor<1x64xi32>
  %42 = tt.broadcast %40 : tensor<128x64x!tt.ptr<f16>>
  %43 = tt.broadcast %41 : tensor<128x64xi32>
  %44 = tt.addptr %42, %43 : tensor<128x64x!tt.ptr<f16>>
  %45 = arith.truncf %24 : tensor<128x64xf16>
  tt.store %44, %45
  tt.return
}
