// Attention's loop of tests/kernels/attention_block.py at d128: K^T read with d contiguous loads
// K's rows as they lie and transposes them; Q, outside the loop, is a descriptor load too.
tt.func public @attention_block_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %N_CTX: i32 {tt.divisibility = 16}) {
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
  %16 = arith.constant {value = -inf} : tensor<128xf32>
  %17 = arith.constant {value = 0.0} : tensor<128xf32>
  %18 = arith.constant {value = 0.0} : tensor<128x128xf32>
  %19 = arith.constant {value = 0} : i32
  %20 = arith.constant {value = 64} : i32
  %21 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %22 = arith.constant {value = 128} : tensor<1x64xi32>
  %23 = tt.splat %k_ptr : tensor<1x64x!tt.ptr<f16>>
  %24 = tt.expand_dims %3 {axis = 1} : tensor<128x1xi32>
  %25 = tt.broadcast %24 : tensor<128x64xi32>
  %26 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %27 = arith.constant {value = 128} : tensor<64x1xi32>
  %28 = tt.splat %v_ptr : tensor<64x1x!tt.ptr<f16>>
  %29 = tt.broadcast %11 : tensor<64x128xi32>
  %30, %31, %32 = scf.for %19, %N_CTX, %20, %18, %17, %16 : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32> {
  ^bb0(%33: i32, %34: tensor<128x128xf32>, %35: tensor<128xf32>, %36: tensor<128xf32>):
    %37 = tt.splat %33 : tensor<64xi32>
    %38 = arith.addi %37, %21 : tensor<64xi32>
    %39 = tt.expand_dims %38 {axis = 0} : tensor<1x64xi32>
    %40 = arith.muli %39, %22 : tensor<1x64xi32>
    %41 = tt.addptr %23, %40 : tensor<1x64x!tt.ptr<f16>>
    %42 = tt.broadcast %41 : tensor<128x64x!tt.ptr<f16>>
    %43 = tt.addptr %42, %25 : tensor<128x64x!tt.ptr<f16>>
    %44 = tt.load %43 : tensor<128x64xf16>
    %45 = tt.dot %15, %44, %26 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    %46 = tt.reduce %45 {axis = 1} : tensor<128xf32> {
    ^bb0(%47: f32, %48: f32):
      %49 = arith.maxnumf %47, %48 : f32
      tt.reduce.return %49
    }
    %50 = arith.maxnumf %36, %46 : tensor<128xf32>
    %51 = tt.expand_dims %50 {axis = 1} : tensor<128x1xf32>
    %52 = tt.broadcast %51 : tensor<128x64xf32>
    %53 = arith.subf %45, %52 : tensor<128x64xf32>
    %54 = math.exp2 %53 : tensor<128x64xf32>
    %55 = arith.subf %36, %50 : tensor<128xf32>
    %56 = math.exp2 %55 : tensor<128xf32>
    %57 = arith.mulf %35, %56 : tensor<128xf32>
    %58 = tt.reduce %54 {axis = 1} : tensor<128xf32> {
    ^bb0(%59: f32, %60: f32):
      %61 = arith.addf %59, %60 : f32
      tt.reduce.return %61
    }
    %62 = arith.addf %57, %58 : tensor<128xf32>
    %63 = tt.expand_dims %38 {axis = 1} : tensor<64x1xi32>
    %64 = arith.muli %63, %27 : tensor<64x1xi32>
    %65 = tt.addptr %28, %64 : tensor<64x1x!tt.ptr<f16>>
    %66 = tt.broadcast %65 : tensor<64x128x!tt.ptr<f16>>
    %67 = tt.addptr %66, %29 : tensor<64x128x!tt.ptr<f16>>
    %68 = tt.load %67 : tensor<64x128xf16>
    %69 = arith.truncf %54 : tensor<128x64xf16>
    %70 = tt.expand_dims %56 {axis = 1} : tensor<128x1xf32>
    %71 = tt.broadcast %70 : tensor<128x128xf32>
    %72 = arith.mulf %34, %71 : tensor<128x128xf32>
    %73 = tt.dot %69, %68, %72 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32>
    scf.yield %73, %62, %50
  }
  %74 = tt.splat %o_ptr : tensor<128x1x!tt.ptr<f16>>
  %75 = tt.addptr %74, %8 : tensor<128x1x!tt.ptr<f16>>
  %76 = tt.broadcast %75 : tensor<128x128x!tt.ptr<f16>>
  %77 = tt.addptr %76, %13 : tensor<128x128x!tt.ptr<f16>>
  %78 = tt.expand_dims %31 {axis = 1} : tensor<128x1xf32>
  %79 = tt.broadcast %78 : tensor<128x128xf32>
  %80 = arith.divf %30, %79 : tensor<128x128xf32>
  %81 = arith.truncf %80 : tensor<128x128xf16>
  tt.store %77, %81
  tt.return
}
// ----- expected
tt.func public @attention_block_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = arith.constant {value = 2147483647} : i32
  %1 = arith.constant {value = 128} : i32
  %2 = arith.constant {value = 128} : i64
  %3 = arith.constant {value = 1} : i64
  %4 = tt.make_tensor_descriptor %v_ptr, %0, %1, %2, %3 {padding = "zero"} : !tt.tensordesc<tensor<64x128xf16>>
  %5 = arith.constant {value = 2147483647} : i32
  %6 = arith.constant {value = 128} : i32
  %7 = arith.constant {value = 128} : i64
  %8 = arith.constant {value = 1} : i64
  %9 = tt.make_tensor_descriptor %k_ptr, %5, %6, %7, %8 {padding = "zero"} : !tt.tensordesc<tensor<64x128xf16>>
  %10 = arith.constant {value = 2147483647} : i32
  %11 = arith.constant {value = 128} : i32
  %12 = arith.constant {value = 128} : i64
  %13 = arith.constant {value = 1} : i64
  %14 = tt.make_tensor_descriptor %q_ptr, %10, %11, %12, %13 {padding = "zero"} : !tt.tensordesc<tensor<128x128xf16>>
  %15 = tt.get_program_id {axis = 0} : i32
  %16 = arith.constant {value = 128} : i32
  %17 = arith.muli %15, %16 : i32
  %18 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %19 = tt.splat %17 : tensor<128xi32>
  %20 = arith.addi %19, %18 : tensor<128xi32>
  %21 = tt.expand_dims %20 {axis = 1} : tensor<128x1xi32>
  %22 = arith.constant {value = 128} : tensor<128x1xi32>
  %23 = arith.muli %21, %22 : tensor<128x1xi32>
  %24 = tt.splat %q_ptr : tensor<128x1x!tt.ptr<f16>>
  %25 = tt.addptr %24, %23 : tensor<128x1x!tt.ptr<f16>>
  %26 = tt.expand_dims %18 {axis = 0} : tensor<1x128xi32>
  %27 = tt.broadcast %25 : tensor<128x128x!tt.ptr<f16>>
  %28 = tt.broadcast %26 : tensor<128x128xi32>
  %29 = tt.addptr %27, %28 : tensor<128x128x!tt.ptr<f16>>
  %30 = arith.constant {value = 0} : i32
  %31 = arith.addi %30, %17 : i32
  %32 = arith.constant {value = 0} : i32
  %33 = tt.descriptor_load %14, %31, %32 : tensor<128x128xf16>
  %34 = arith.constant {value = -inf} : tensor<128xf32>
  %35 = arith.constant {value = 0.0} : tensor<128xf32>
  %36 = arith.constant {value = 0.0} : tensor<128x128xf32>
  %37 = arith.constant {value = 0} : i32
  %38 = arith.constant {value = 64} : i32
  %39 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %40 = arith.constant {value = 128} : tensor<1x64xi32>
  %41 = tt.splat %k_ptr : tensor<1x64x!tt.ptr<f16>>
  %42 = tt.expand_dims %18 {axis = 1} : tensor<128x1xi32>
  %43 = tt.broadcast %42 : tensor<128x64xi32>
  %44 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %45 = arith.constant {value = 128} : tensor<64x1xi32>
  %46 = tt.splat %v_ptr : tensor<64x1x!tt.ptr<f16>>
  %47 = tt.broadcast %26 : tensor<64x128xi32>
  %48, %49, %50 = scf.for %37, %N_CTX, %38, %36, %35, %34 : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32> {
  ^bb0(%51: i32, %52: tensor<128x128xf32>, %53: tensor<128xf32>, %54: tensor<128xf32>):
    %55 = tt.splat %51 : tensor<64xi32>
    %56 = arith.addi %55, %39 : tensor<64xi32>
    %57 = tt.expand_dims %56 {axis = 0} : tensor<1x64xi32>
    %58 = arith.muli %57, %40 : tensor<1x64xi32>
    %59 = tt.addptr %41, %58 : tensor<1x64x!tt.ptr<f16>>
    %60 = tt.broadcast %59 : tensor<128x64x!tt.ptr<f16>>
    %61 = tt.addptr %60, %43 : tensor<128x64x!tt.ptr<f16>>
    %62 = arith.constant {value = 0} : i32
    %63 = arith.addi %62, %51 : i32
    %64 = arith.constant {value = 0} : i32
    %65 = tt.descriptor_load %9, %63, %64 : tensor<64x128xf16>
    %66 = tt.trans %65 {order = [1, 0]} : tensor<128x64xf16>
    %67 = tt.dot %33, %66, %44 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    %68 = tt.reduce %67 {axis = 1} : tensor<128xf32> {
    ^bb0(%69: f32, %70: f32):
      %71 = arith.maxnumf %69, %70 : f32
      tt.reduce.return %71
    }
    %72 = arith.maxnumf %54, %68 : tensor<128xf32>
    %73 = tt.expand_dims %72 {axis = 1} : tensor<128x1xf32>
    %74 = tt.broadcast %73 : tensor<128x64xf32>
    %75 = arith.subf %67, %74 : tensor<128x64xf32>
    %76 = math.exp2 %75 : tensor<128x64xf32>
    %77 = arith.subf %54, %72 : tensor<128xf32>
    %78 = math.exp2 %77 : tensor<128xf32>
    %79 = arith.mulf %53, %78 : tensor<128xf32>
    %80 = tt.reduce %76 {axis = 1} : tensor<128xf32> {
    ^bb0(%81: f32, %82: f32):
      %83 = arith.addf %81, %82 : f32
      tt.reduce.return %83
    }
    %84 = arith.addf %79, %80 : tensor<128xf32>
    %85 = tt.expand_dims %56 {axis = 1} : tensor<64x1xi32>
    %86 = arith.muli %85, %45 : tensor<64x1xi32>
    %87 = tt.addptr %46, %86 : tensor<64x1x!tt.ptr<f16>>
    %88 = tt.broadcast %87 : tensor<64x128x!tt.ptr<f16>>
    %89 = tt.addptr %88, %47 : tensor<64x128x!tt.ptr<f16>>
    %90 = arith.constant {value = 0} : i32
    %91 = arith.addi %90, %51 : i32
    %92 = arith.constant {value = 0} : i32
    %93 = tt.descriptor_load %4, %91, %92 : tensor<64x128xf16>
    %94 = arith.truncf %76 : tensor<128x64xf16>
    %95 = tt.expand_dims %78 {axis = 1} : tensor<128x1xf32>
    %96 = tt.broadcast %95 : tensor<128x128xf32>
    %97 = arith.mulf %52, %96 : tensor<128x128xf32>
    %98 = tt.dot %94, %93, %97 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32>
    scf.yield %98, %84, %72
  }
  %99 = tt.splat %o_ptr : tensor<128x1x!tt.ptr<f16>>
  %100 = tt.addptr %99, %23 : tensor<128x1x!tt.ptr<f16>>
  %101 = tt.broadcast %100 : tensor<128x128x!tt.ptr<f16>>
  %102 = tt.addptr %101, %28 : tensor<128x128x!tt.ptr<f16>>
  %103 = tt.expand_dims %49 {axis = 1} : tensor<128x1xf32>
  %104 = tt.broadcast %103 : tensor<128x128xf32>
  %105 = arith.divf %48, %104 : tensor<128x128xf32>
  %106 = arith.truncf %105 : tensor<128x128xf16>
  tt.store %102, %106
  tt.return
}
