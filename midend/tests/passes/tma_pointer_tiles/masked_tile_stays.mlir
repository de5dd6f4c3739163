// A masked tile stays on the pointer path (TMA would zero-fill by the tensor's shape, not the mask);
// with no tile of the loop taking TMA, Q outside it stays too.
tt.func public @masked_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.expand_dims %5 {axis = 1} : tensor<128x1xi32>
  %7 = arith.constant {value = 128} : tensor<128x1xi32>
  %8 = arith.muli %6, %7 : tensor<128x1xi32>
  %9 = tt.splat %q_ptr : tensor<128x1x!tt.ptr<f16>>
  %10 = tt.addptr %9, %8 : tensor<128x1x!tt.ptr<f16>>
  %11 = tt.expand_dims %3 {axis = 0} : tensor<1x128xi32>
  %12 = tt.broadcast %10 : tensor<128x128x!tt.ptr<f16>>
  %13 = tt.broadcast %11 : tensor<128x128xi32>
  %14 = tt.addptr %12, %13 : tensor<128x128x!tt.ptr<f16>>
  %15 = tt.load %14 : tensor<128x128xf16>
  %16 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %17 = arith.constant {value = 0} : i32
  %18 = arith.constant {value = 64} : i32
  %19 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %20 = arith.constant {value = 128} : tensor<64x1xi32>
  %21 = tt.splat %k_ptr : tensor<64x1x!tt.ptr<f16>>
  %22 = tt.broadcast %11 : tensor<64x128xi32>
  %23 = tt.splat %N_CTX : tensor<64x1xi32>
  %24 = arith.constant {value = 0.0} : tensor<64x128xf16>
  %25 = scf.for %17, %N_CTX, %18, %16 : tensor<128x64xf32> {
  ^bb0(%26: i32, %27: tensor<128x64xf32>):
    %28 = tt.splat %26 : tensor<64xi32>
    %29 = arith.addi %28, %19 : tensor<64xi32>
    %30 = tt.expand_dims %29 {axis = 1} : tensor<64x1xi32>
    %31 = arith.muli %30, %20 : tensor<64x1xi32>
    %32 = tt.addptr %21, %31 : tensor<64x1x!tt.ptr<f16>>
    %33 = tt.broadcast %32 : tensor<64x128x!tt.ptr<f16>>
    %34 = tt.addptr %33, %22 : tensor<64x128x!tt.ptr<f16>>
    %35 = arith.cmpi %30, %23 {predicate = "slt"} : tensor<64x1xi1>
    %36 = tt.broadcast %35 : tensor<64x128xi1>
    %37 = tt.load %34, %36, %24 : tensor<64x128xf16>
    %38 = tt.trans %37 {order = [1, 0]} : tensor<128x64xf16>
    %39 = tt.dot %15, %38, %27 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    scf.yield %39
  }
  %40 = arith.constant {value = 64} : tensor<128x1xi32>
  %41 = arith.muli %6, %40 : tensor<128x1xi32>
  %42 = tt.splat %o_ptr : tensor<128x1x!tt.ptr<f16>>
  %43 = tt.addptr %42, %41 : tensor<128x1x!tt.ptr<f16>>
  %44 = tt.expand_dims %19 {axis = 0} : tensor<1x64xi32>
  %45 = tt.broadcast %43 : tensor<128x64x!tt.ptr<f16>>
  %46 = tt.broadcast %44 : tensor<128x64xi32>
  %47 = tt.addptr %45, %46 : tensor<128x64x!tt.ptr<f16>>
  %48 = arith.truncf %25 : tensor<128x64xf16>
  tt.store %47, %48
  tt.return
}
// ----- expected
tt.func public @masked_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %4 = tt.splat %2 : tensor<128xi32>
  %5 = arith.addi %4, %3 : tensor<128xi32>
  %6 = tt.expand_dims %5 {axis = 1} : tensor<128x1xi32>
  %7 = arith.constant {value = 128} : tensor<128x1xi32>
  %8 = arith.muli %6, %7 : tensor<128x1xi32>
  %9 = tt.splat %q_ptr : tensor<128x1x!tt.ptr<f16>>
  %10 = tt.addptr %9, %8 : tensor<128x1x!tt.ptr<f16>>
  %11 = tt.expand_dims %3 {axis = 0} : tensor<1x128xi32>
  %12 = tt.broadcast %10 : tensor<128x128x!tt.ptr<f16>>
  %13 = tt.broadcast %11 : tensor<128x128xi32>
  %14 = tt.addptr %12, %13 : tensor<128x128x!tt.ptr<f16>>
  %15 = tt.load %14 : tensor<128x128xf16>
  %16 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %17 = arith.constant {value = 0} : i32
  %18 = arith.constant {value = 64} : i32
  %19 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %20 = arith.constant {value = 128} : tensor<64x1xi32>
  %21 = tt.splat %k_ptr : tensor<64x1x!tt.ptr<f16>>
  %22 = tt.broadcast %11 : tensor<64x128xi32>
  %23 = tt.splat %N_CTX : tensor<64x1xi32>
  %24 = arith.constant {value = 0.0} : tensor<64x128xf16>
  %25 = scf.for %17, %N_CTX, %18, %16 : tensor<128x64xf32> {
  ^bb0(%26: i32, %27: tensor<128x64xf32>):
    %28 = tt.splat %26 : tensor<64xi32>
    %29 = arith.addi %28, %19 : tensor<64xi32>
    %30 = tt.expand_dims %29 {axis = 1} : tensor<64x1xi32>
    %31 = arith.muli %30, %20 : tensor<64x1xi32>
    %32 = tt.addptr %21, %31 : tensor<64x1x!tt.ptr<f16>>
    %33 = tt.broadcast %32 : tensor<64x128x!tt.ptr<f16>>
    %34 = tt.addptr %33, %22 : tensor<64x128x!tt.ptr<f16>>
    %35 = arith.cmpi %30, %23 {predicate = "slt"} : tensor<64x1xi1>
    %36 = tt.broadcast %35 : tensor<64x128xi1>
    %37 = tt.load %34, %36, %24 : tensor<64x128xf16>
    %38 = tt.trans %37 {order = [1, 0]} : tensor<128x64xf16>
    %39 = tt.dot %15, %38, %27 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    scf.yield %39
  }
  %40 = arith.constant {value = 64} : tensor<128x1xi32>
  %41 = arith.muli %6, %40 : tensor<128x1xi32>
  %42 = tt.splat %o_ptr : tensor<128x1x!tt.ptr<f16>>
  %43 = tt.addptr %42, %41 : tensor<128x1x!tt.ptr<f16>>
  %44 = tt.expand_dims %19 {axis = 0} : tensor<1x64xi32>
  %45 = tt.broadcast %43 : tensor<128x64x!tt.ptr<f16>>
  %46 = tt.broadcast %44 : tensor<128x64xi32>
  %47 = tt.addptr %45, %46 : tensor<128x64x!tt.ptr<f16>>
  %48 = arith.truncf %25 : tensor<128x64xf16>
  tt.store %47, %48
  tt.return
}
