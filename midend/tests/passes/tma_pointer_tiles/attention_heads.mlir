// The corpus' pointer-form attention at d128 (TTIR, 8 warps): Q, K and V tiles become descriptor
// loads of descriptors over the arguments, K's transposed; each tile's first row is the head's
// offset over the row stride (head * N_CTX, from head.to(int64) * N_CTX * 128) plus n0.
tt.func public @flash_attn_fwd_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %lse_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %sm_scale: f32, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.get_program_id {axis = 1} : i32
  %2 = arith.extsi %1 : i64
  %3 = arith.extsi %N_CTX : i64
  %4 = arith.muli %2, %3 : i64
  %5 = arith.constant {value = 128} : i32
  %6 = arith.constant {value = 128} : i64
  %7 = arith.muli %4, %6 : i64
  %8 = arith.muli %0, %5 : i32
  %9 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %10 = tt.splat %8 : tensor<128xi32>
  %11 = arith.addi %10, %9 : tensor<128xi32>
  %12 = tt.addptr %q_ptr, %7 : !tt.ptr<f16>
  %13 = tt.expand_dims %11 {axis = 1} : tensor<128x1xi32>
  %14 = arith.constant {value = 128} : tensor<128x1xi32>
  %15 = arith.muli %13, %14 : tensor<128x1xi32>
  %16 = tt.splat %12 : tensor<128x1x!tt.ptr<f16>>
  %17 = tt.addptr %16, %15 : tensor<128x1x!tt.ptr<f16>>
  %18 = tt.expand_dims %9 {axis = 0} : tensor<1x128xi32>
  %19 = tt.broadcast %17 : tensor<128x128x!tt.ptr<f16>>
  %20 = tt.broadcast %18 : tensor<128x128xi32>
  %21 = tt.addptr %19, %20 : tensor<128x128x!tt.ptr<f16>>
  %22 = tt.load %21 : tensor<128x128xf16>
  %23 = tt.addptr %k_ptr, %7 : !tt.ptr<f16>
  %24 = tt.addptr %v_ptr, %7 : !tt.ptr<f16>
  %25 = arith.constant {value = 1.4426950408889634} : f32
  %26 = arith.mulf %sm_scale, %25 : f32
  %27 = arith.constant {value = -inf} : tensor<128xf32>
  %28 = arith.constant {value = 0.0} : tensor<128xf32>
  %29 = arith.constant {value = 0.0} : tensor<128x128xf32>
  %30 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %31 = arith.constant {value = 0} : i32
  %32 = arith.constant {value = 64} : i32
  %33 = arith.constant {value = 128} : tensor<1x64xi32>
  %34 = tt.splat %23 : tensor<1x64x!tt.ptr<f16>>
  %35 = tt.expand_dims %9 {axis = 1} : tensor<128x1xi32>
  %36 = tt.broadcast %35 : tensor<128x64xi32>
  %37 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %38 = tt.splat %26 : tensor<128x64xf32>
  %39 = arith.constant {value = 128} : tensor<64x1xi32>
  %40 = tt.splat %24 : tensor<64x1x!tt.ptr<f16>>
  %41 = tt.broadcast %18 : tensor<64x128xi32>
  %42, %43, %44 = scf.for %31, %N_CTX, %32, %29, %28, %27 {tt.divisibility_arg0 = [64]} : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32> {
  ^bb0(%45: i32, %46: tensor<128x128xf32>, %47: tensor<128xf32>, %48: tensor<128xf32>):
    %49 = tt.splat %45 : tensor<64xi32>
    %50 = arith.addi %49, %30 : tensor<64xi32>
    %51 = tt.expand_dims %50 {axis = 0} : tensor<1x64xi32>
    %52 = arith.muli %51, %33 : tensor<1x64xi32>
    %53 = tt.addptr %34, %52 : tensor<1x64x!tt.ptr<f16>>
    %54 = tt.broadcast %53 : tensor<128x64x!tt.ptr<f16>>
    %55 = tt.addptr %54, %36 : tensor<128x64x!tt.ptr<f16>>
    %56 = tt.load %55 : tensor<128x64xf16>
    %57 = tt.dot %22, %56, %37 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    %58 = arith.mulf %57, %38 : tensor<128x64xf32>
    %59 = tt.reduce %58 {axis = 1} : tensor<128xf32> {
    ^bb0(%60: f32, %61: f32):
      %62 = arith.maxnumf %60, %61 : f32
      tt.reduce.return %62
    }
    %63 = arith.maxnumf %48, %59 : tensor<128xf32>
    %64 = tt.expand_dims %63 {axis = 1} : tensor<128x1xf32>
    %65 = tt.broadcast %64 : tensor<128x64xf32>
    %66 = arith.subf %58, %65 : tensor<128x64xf32>
    %67 = math.exp2 %66 : tensor<128x64xf32>
    %68 = arith.subf %48, %63 : tensor<128xf32>
    %69 = math.exp2 %68 : tensor<128xf32>
    %70 = arith.mulf %47, %69 : tensor<128xf32>
    %71 = tt.reduce %67 {axis = 1} : tensor<128xf32> {
    ^bb0(%72: f32, %73: f32):
      %74 = arith.addf %72, %73 : f32
      tt.reduce.return %74
    }
    %75 = arith.addf %70, %71 : tensor<128xf32>
    %76 = tt.expand_dims %50 {axis = 1} : tensor<64x1xi32>
    %77 = arith.muli %76, %39 : tensor<64x1xi32>
    %78 = tt.addptr %40, %77 : tensor<64x1x!tt.ptr<f16>>
    %79 = tt.broadcast %78 : tensor<64x128x!tt.ptr<f16>>
    %80 = tt.addptr %79, %41 : tensor<64x128x!tt.ptr<f16>>
    %81 = tt.load %80 : tensor<64x128xf16>
    %82 = arith.truncf %67 : tensor<128x64xf16>
    %83 = tt.expand_dims %69 {axis = 1} : tensor<128x1xf32>
    %84 = tt.broadcast %83 : tensor<128x128xf32>
    %85 = arith.mulf %46, %84 : tensor<128x128xf32>
    %86 = tt.dot %82, %81, %85 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32>
    scf.yield %86, %75, %63
  }
  %87 = tt.expand_dims %43 {axis = 1} : tensor<128x1xf32>
  %88 = tt.broadcast %87 : tensor<128x128xf32>
  %89 = arith.divf %42, %88 : tensor<128x128xf32>
  %90 = tt.addptr %o_ptr, %7 : !tt.ptr<f16>
  %91 = tt.splat %90 : tensor<128x1x!tt.ptr<f16>>
  %92 = tt.addptr %91, %15 : tensor<128x1x!tt.ptr<f16>>
  %93 = tt.broadcast %92 : tensor<128x128x!tt.ptr<f16>>
  %94 = tt.addptr %93, %20 : tensor<128x128x!tt.ptr<f16>>
  %95 = arith.truncf %89 : tensor<128x128xf16>
  tt.store %94, %95
  %96 = arith.muli %1, %N_CTX : i32
  %97 = tt.addptr %lse_ptr, %96 : !tt.ptr<f32>
  %98 = tt.splat %97 : tensor<128x!tt.ptr<f32>>
  %99 = tt.addptr %98, %11 : tensor<128x!tt.ptr<f32>>
  %100 = math.log2 %43 : tensor<128xf32>
  %101 = arith.addf %44, %100 : tensor<128xf32>
  %102 = arith.constant {value = 1.4426950408889634} : tensor<128xf32>
  %103 = arith.divf %101, %102 : tensor<128xf32>
  tt.store %99, %103
  tt.return
}
// ----- expected
tt.func public @flash_attn_fwd_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %lse_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %sm_scale: f32, %N_CTX: i32 {tt.divisibility = 16}) {
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
  %16 = tt.get_program_id {axis = 1} : i32
  %17 = arith.extsi %16 : i64
  %18 = arith.extsi %N_CTX : i64
  %19 = arith.muli %17, %18 : i64
  %20 = arith.constant {value = 128} : i32
  %21 = arith.constant {value = 128} : i64
  %22 = arith.muli %19, %21 : i64
  %23 = arith.muli %15, %20 : i32
  %24 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %25 = tt.splat %23 : tensor<128xi32>
  %26 = arith.addi %25, %24 : tensor<128xi32>
  %27 = tt.addptr %q_ptr, %22 : !tt.ptr<f16>
  %28 = tt.expand_dims %26 {axis = 1} : tensor<128x1xi32>
  %29 = arith.constant {value = 128} : tensor<128x1xi32>
  %30 = arith.muli %28, %29 : tensor<128x1xi32>
  %31 = tt.splat %27 : tensor<128x1x!tt.ptr<f16>>
  %32 = tt.addptr %31, %30 : tensor<128x1x!tt.ptr<f16>>
  %33 = tt.expand_dims %24 {axis = 0} : tensor<1x128xi32>
  %34 = tt.broadcast %32 : tensor<128x128x!tt.ptr<f16>>
  %35 = tt.broadcast %33 : tensor<128x128xi32>
  %36 = tt.addptr %34, %35 : tensor<128x128x!tt.ptr<f16>>
  %37 = arith.constant {value = 0} : i32
  %38 = arith.trunci %19 : i32
  %39 = arith.addi %37, %38 : i32
  %40 = arith.addi %39, %23 : i32
  %41 = arith.constant {value = 0} : i32
  %42 = tt.descriptor_load %14, %40, %41 : tensor<128x128xf16>
  %43 = tt.addptr %k_ptr, %22 : !tt.ptr<f16>
  %44 = tt.addptr %v_ptr, %22 : !tt.ptr<f16>
  %45 = arith.constant {value = 1.4426950408889634} : f32
  %46 = arith.mulf %sm_scale, %45 : f32
  %47 = arith.constant {value = -inf} : tensor<128xf32>
  %48 = arith.constant {value = 0.0} : tensor<128xf32>
  %49 = arith.constant {value = 0.0} : tensor<128x128xf32>
  %50 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %51 = arith.constant {value = 0} : i32
  %52 = arith.constant {value = 64} : i32
  %53 = arith.constant {value = 128} : tensor<1x64xi32>
  %54 = tt.splat %43 : tensor<1x64x!tt.ptr<f16>>
  %55 = tt.expand_dims %24 {axis = 1} : tensor<128x1xi32>
  %56 = tt.broadcast %55 : tensor<128x64xi32>
  %57 = arith.constant {value = 0.0} : tensor<128x64xf32>
  %58 = tt.splat %46 : tensor<128x64xf32>
  %59 = arith.constant {value = 128} : tensor<64x1xi32>
  %60 = tt.splat %44 : tensor<64x1x!tt.ptr<f16>>
  %61 = tt.broadcast %33 : tensor<64x128xi32>
  %62, %63, %64 = scf.for %51, %N_CTX, %52, %49, %48, %47 {tt.divisibility_arg0 = [64]} : tensor<128x128xf32>, tensor<128xf32>, tensor<128xf32> {
  ^bb0(%65: i32, %66: tensor<128x128xf32>, %67: tensor<128xf32>, %68: tensor<128xf32>):
    %69 = tt.splat %65 : tensor<64xi32>
    %70 = arith.addi %69, %50 : tensor<64xi32>
    %71 = tt.expand_dims %70 {axis = 0} : tensor<1x64xi32>
    %72 = arith.muli %71, %53 : tensor<1x64xi32>
    %73 = tt.addptr %54, %72 : tensor<1x64x!tt.ptr<f16>>
    %74 = tt.broadcast %73 : tensor<128x64x!tt.ptr<f16>>
    %75 = tt.addptr %74, %56 : tensor<128x64x!tt.ptr<f16>>
    %76 = arith.constant {value = 0} : i32
    %77 = arith.trunci %19 : i32
    %78 = arith.addi %76, %77 : i32
    %79 = arith.addi %78, %65 : i32
    %80 = arith.constant {value = 0} : i32
    %81 = tt.descriptor_load %9, %79, %80 : tensor<64x128xf16>
    %82 = tt.trans %81 {order = [1, 0]} : tensor<128x64xf16>
    %83 = tt.dot %42, %82, %57 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32>
    %84 = arith.mulf %83, %58 : tensor<128x64xf32>
    %85 = tt.reduce %84 {axis = 1} : tensor<128xf32> {
    ^bb0(%86: f32, %87: f32):
      %88 = arith.maxnumf %86, %87 : f32
      tt.reduce.return %88
    }
    %89 = arith.maxnumf %68, %85 : tensor<128xf32>
    %90 = tt.expand_dims %89 {axis = 1} : tensor<128x1xf32>
    %91 = tt.broadcast %90 : tensor<128x64xf32>
    %92 = arith.subf %84, %91 : tensor<128x64xf32>
    %93 = math.exp2 %92 : tensor<128x64xf32>
    %94 = arith.subf %68, %89 : tensor<128xf32>
    %95 = math.exp2 %94 : tensor<128xf32>
    %96 = arith.mulf %67, %95 : tensor<128xf32>
    %97 = tt.reduce %93 {axis = 1} : tensor<128xf32> {
    ^bb0(%98: f32, %99: f32):
      %100 = arith.addf %98, %99 : f32
      tt.reduce.return %100
    }
    %101 = arith.addf %96, %97 : tensor<128xf32>
    %102 = tt.expand_dims %70 {axis = 1} : tensor<64x1xi32>
    %103 = arith.muli %102, %59 : tensor<64x1xi32>
    %104 = tt.addptr %60, %103 : tensor<64x1x!tt.ptr<f16>>
    %105 = tt.broadcast %104 : tensor<64x128x!tt.ptr<f16>>
    %106 = tt.addptr %105, %61 : tensor<64x128x!tt.ptr<f16>>
    %107 = arith.constant {value = 0} : i32
    %108 = arith.trunci %19 : i32
    %109 = arith.addi %107, %108 : i32
    %110 = arith.addi %109, %65 : i32
    %111 = arith.constant {value = 0} : i32
    %112 = tt.descriptor_load %4, %110, %111 : tensor<64x128xf16>
    %113 = arith.truncf %93 : tensor<128x64xf16>
    %114 = tt.expand_dims %95 {axis = 1} : tensor<128x1xf32>
    %115 = tt.broadcast %114 : tensor<128x128xf32>
    %116 = arith.mulf %66, %115 : tensor<128x128xf32>
    %117 = tt.dot %113, %112, %116 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32>
    scf.yield %117, %101, %89
  }
  %118 = tt.expand_dims %63 {axis = 1} : tensor<128x1xf32>
  %119 = tt.broadcast %118 : tensor<128x128xf32>
  %120 = arith.divf %62, %119 : tensor<128x128xf32>
  %121 = tt.addptr %o_ptr, %22 : !tt.ptr<f16>
  %122 = tt.splat %121 : tensor<128x1x!tt.ptr<f16>>
  %123 = tt.addptr %122, %30 : tensor<128x1x!tt.ptr<f16>>
  %124 = tt.broadcast %123 : tensor<128x128x!tt.ptr<f16>>
  %125 = tt.addptr %124, %35 : tensor<128x128x!tt.ptr<f16>>
  %126 = arith.truncf %120 : tensor<128x128xf16>
  tt.store %125, %126
  %127 = arith.muli %16, %N_CTX : i32
  %128 = tt.addptr %lse_ptr, %127 : !tt.ptr<f32>
  %129 = tt.splat %128 : tensor<128x!tt.ptr<f32>>
  %130 = tt.addptr %129, %26 : tensor<128x!tt.ptr<f32>>
  %131 = math.log2 %63 : tensor<128xf32>
  %132 = arith.addf %64, %131 : tensor<128xf32>
  %133 = arith.constant {value = 1.4426950408889634} : tensor<128xf32>
  %134 = arith.divf %132, %133 : tensor<128xf32>
  tt.store %130, %134
  tt.return
}
