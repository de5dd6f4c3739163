// The corpus' flash attention (64x32 blocks, HEAD_DIM 64, 4 warps of 64: lavapipe's Vulkan) after
// remove-layout-conversions. Off tensor-core layouts, both dots take the 4x4 register tile, the
// loop carries the accumulator and the row statistics in it (and its slices), and the softmax
// between the dots runs in it: no conversion is left in the loop. The output is stored from the
// tile (4 f16 per thread and row), without a conversion after the loop.
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 64}
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [64, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [64, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [2, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @flash_attn_fwd_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %lse_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %sm_scale: f32, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.get_program_id {axis = 1} : i32
  %2 = arith.extsi %1 : i64
  %3 = arith.extsi %N_CTX : i64
  %4 = arith.muli %2, %3 : i64
  %5 = arith.constant {value = 64} : i32
  %6 = arith.constant {value = 64} : i64
  %7 = arith.muli %4, %6 : i64
  %8 = arith.muli %0, %5 : i32
  %9 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice>
  %10 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #blocked>
  %11 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #blocked>
  %12 = tt.splat %8 : tensor<64xi32, #slice>
  %13 = arith.addi %12, %9 : tensor<64xi32, #slice>
  %14 = tt.addptr %q_ptr, %7 : !tt.ptr<f16>
  %15 = tt.expand_dims %13 {axis = 1} : tensor<64x1xi32, #blocked1>
  %16 = arith.constant {value = 64} : tensor<64x1xi32, #blocked1>
  %17 = arith.muli %15, %16 : tensor<64x1xi32, #blocked1>
  %18 = tt.splat %14 : tensor<64x1x!tt.ptr<f16>, #blocked1>
  %19 = tt.addptr %18, %17 : tensor<64x1x!tt.ptr<f16>, #blocked1>
  %20 = ttg.convert_layout %11 : tensor<64xi32, #slice1>
  %21 = tt.expand_dims %20 {axis = 0} : tensor<1x64xi32, #blocked2>
  %22 = ttg.convert_layout %19 : tensor<64x1x!tt.ptr<f16>, #blocked2>
  %23 = tt.broadcast %22 : tensor<64x64x!tt.ptr<f16>, #blocked2>
  %24 = tt.broadcast %21 : tensor<64x64xi32, #blocked2>
  %25 = tt.addptr %23, %24 : tensor<64x64x!tt.ptr<f16>, #blocked2>
  %26 = tt.load %25 : tensor<64x64xf16, #blocked2>
  %27 = tt.addptr %k_ptr, %7 : !tt.ptr<f16>
  %28 = tt.addptr %v_ptr, %7 : !tt.ptr<f16>
  %29 = arith.constant {value = 1.4426950408889634} : f32
  %30 = arith.mulf %sm_scale, %29 : f32
  %31 = arith.constant {value = -inf} : tensor<64xf32, #slice>
  %32 = arith.constant {value = 0.0} : tensor<64xf32, #slice>
  %33 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked2>
  %34 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked>
  %35 = arith.constant {value = 0} : i32
  %36 = arith.constant {value = 32} : i32
  %37 = arith.constant {value = 64} : tensor<1x32xi32, #blocked3>
  %38 = tt.splat %27 : tensor<1x32x!tt.ptr<f16>, #blocked3>
  %39 = ttg.convert_layout %10 : tensor<64xi32, #slice>
  %40 = tt.expand_dims %39 {axis = 1} : tensor<64x1xi32, #blocked1>
  %41 = ttg.convert_layout %40 : tensor<64x1xi32, #blocked3>
  %42 = tt.broadcast %41 : tensor<64x32xi32, #blocked3>
  %43 = arith.constant {value = 0.0} : tensor<64x32xf32, #blocked3>
  %44 = tt.splat %30 : tensor<64x32xf32, #blocked3>
  %45 = arith.constant {value = 64} : tensor<32x1xi32, #blocked1>
  %46 = tt.splat %28 : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %47 = tt.broadcast %21 : tensor<32x64xi32, #blocked2>
  %48, %49, %50 = scf.for %35, %N_CTX, %36, %33, %32, %31 {tt.divisibility_arg0 = [32]} : tensor<64x64xf32, #blocked2>, tensor<64xf32, #slice>, tensor<64xf32, #slice> {
  ^bb0(%51: i32, %52: tensor<64x64xf32, #blocked2>, %53: tensor<64xf32, #slice>, %54: tensor<64xf32, #slice>):
    %55 = tt.splat %51 : tensor<32xi32, #blocked>
    %56 = arith.addi %55, %34 : tensor<32xi32, #blocked>
    %57 = ttg.convert_layout %56 : tensor<32xi32, #slice2>
    %58 = tt.expand_dims %57 {axis = 0} : tensor<1x32xi32, #blocked3>
    %59 = arith.muli %58, %37 : tensor<1x32xi32, #blocked3>
    %60 = tt.addptr %38, %59 : tensor<1x32x!tt.ptr<f16>, #blocked3>
    %61 = tt.broadcast %60 : tensor<64x32x!tt.ptr<f16>, #blocked3>
    %62 = tt.addptr %61, %42 : tensor<64x32x!tt.ptr<f16>, #blocked3>
    %63 = tt.load %62 : tensor<64x32xf16, #blocked3>
    %64 = tt.dot %26, %63, %43 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #blocked3>
    %65 = arith.mulf %64, %44 : tensor<64x32xf32, #blocked3>
    %66 = tt.reduce %65 {axis = 1} : tensor<64xf32, #slice3> {
    ^bb0(%67: f32, %68: f32):
      %69 = arith.maxnumf %67, %68 : f32
      tt.reduce.return %69
    }
    %70 = ttg.convert_layout %66 : tensor<64xf32, #slice>
    %71 = ttg.convert_layout %66 : tensor<64xf32, #slice>
    %72 = arith.maxnumf %54, %71 : tensor<64xf32, #slice>
    %73 = tt.expand_dims %72 {axis = 1} : tensor<64x1xf32, #blocked1>
    %74 = ttg.convert_layout %73 : tensor<64x1xf32, #blocked3>
    %75 = tt.broadcast %74 : tensor<64x32xf32, #blocked3>
    %76 = arith.subf %65, %75 : tensor<64x32xf32, #blocked3>
    %77 = math.exp2 %76 : tensor<64x32xf32, #blocked3>
    %78 = arith.subf %54, %72 : tensor<64xf32, #slice>
    %79 = math.exp2 %78 : tensor<64xf32, #slice>
    %80 = arith.mulf %53, %79 : tensor<64xf32, #slice>
    %81 = tt.reduce %77 {axis = 1} : tensor<64xf32, #slice3> {
    ^bb0(%82: f32, %83: f32):
      %84 = arith.addf %82, %83 : f32
      tt.reduce.return %84
    }
    %85 = ttg.convert_layout %81 : tensor<64xf32, #slice>
    %86 = ttg.convert_layout %81 : tensor<64xf32, #slice>
    %87 = arith.addf %80, %86 : tensor<64xf32, #slice>
    %88 = ttg.convert_layout %56 : tensor<32xi32, #slice>
    %89 = tt.expand_dims %88 {axis = 1} : tensor<32x1xi32, #blocked1>
    %90 = arith.muli %89, %45 : tensor<32x1xi32, #blocked1>
    %91 = tt.addptr %46, %90 : tensor<32x1x!tt.ptr<f16>, #blocked1>
    %92 = ttg.convert_layout %91 : tensor<32x1x!tt.ptr<f16>, #blocked2>
    %93 = tt.broadcast %92 : tensor<32x64x!tt.ptr<f16>, #blocked2>
    %94 = tt.addptr %93, %47 : tensor<32x64x!tt.ptr<f16>, #blocked2>
    %95 = tt.load %94 : tensor<32x64xf16, #blocked2>
    %96 = arith.truncf %77 : tensor<64x32xf16, #blocked3>
    %97 = tt.expand_dims %79 {axis = 1} : tensor<64x1xf32, #blocked1>
    %98 = ttg.convert_layout %97 : tensor<64x1xf32, #blocked2>
    %99 = tt.broadcast %98 : tensor<64x64xf32, #blocked2>
    %100 = arith.mulf %52, %99 : tensor<64x64xf32, #blocked2>
    %101 = tt.dot %96, %95, %100 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #blocked2>
    scf.yield %101, %87, %72
  }
  %102 = tt.expand_dims %49 {axis = 1} : tensor<64x1xf32, #blocked1>
  %103 = ttg.convert_layout %102 : tensor<64x1xf32, #blocked2>
  %104 = tt.broadcast %103 : tensor<64x64xf32, #blocked2>
  %105 = arith.divf %48, %104 : tensor<64x64xf32, #blocked2>
  %106 = tt.addptr %o_ptr, %7 : !tt.ptr<f16>
  %107 = tt.splat %106 : tensor<64x1x!tt.ptr<f16>, #blocked1>
  %108 = tt.addptr %107, %17 : tensor<64x1x!tt.ptr<f16>, #blocked1>
  %109 = ttg.convert_layout %108 : tensor<64x1x!tt.ptr<f16>, #blocked2>
  %110 = tt.broadcast %109 : tensor<64x64x!tt.ptr<f16>, #blocked2>
  %111 = tt.addptr %110, %24 : tensor<64x64x!tt.ptr<f16>, #blocked2>
  %112 = arith.truncf %105 : tensor<64x64xf16, #blocked2>
  tt.store %111, %112
  %113 = arith.muli %1, %N_CTX : i32
  %114 = tt.addptr %lse_ptr, %113 : !tt.ptr<f32>
  %115 = tt.splat %114 : tensor<64x!tt.ptr<f32>, #slice>
  %116 = tt.addptr %115, %13 : tensor<64x!tt.ptr<f32>, #slice>
  %117 = math.log2 %49 : tensor<64xf32, #slice>
  %118 = arith.addf %50, %117 : tensor<64xf32, #slice>
  %119 = arith.constant {value = 1.4426950408889634} : tensor<64xf32, #slice>
  %120 = arith.divf %118, %119 : tensor<64xf32, #slice>
  tt.store %116, %120
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 64}
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [64, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice2 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice3 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked3 = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
#slice4 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>}>
#slice5 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 8], warpsPerCTA = [1, 4], order = [0, 1]}>}>
#slice6 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @flash_attn_fwd_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %lse_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %sm_scale: f32, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = tt.get_program_id {axis = 1} : i32
  %2 = arith.extsi %1 : i64
  %3 = arith.extsi %N_CTX : i64
  %4 = arith.muli %2, %3 : i64
  %5 = arith.constant {value = 64} : i32
  %6 = arith.constant {value = 64} : i64
  %7 = arith.muli %4, %6 : i64
  %8 = arith.muli %0, %5 : i32
  %9 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice>
  %10 = tt.splat %8 : tensor<64xi32, #slice>
  %11 = arith.addi %10, %9 : tensor<64xi32, #slice>
  %12 = tt.addptr %q_ptr, %7 : !tt.ptr<f16>
  %13 = tt.splat %12 : tensor<64x1x!tt.ptr<f16>, #blocked>
  %14 = tt.splat %8 : tensor<64xi32, #slice1>
  %15 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice1>
  %16 = arith.addi %14, %15 : tensor<64xi32, #slice1>
  %17 = tt.expand_dims %16 {axis = 1} : tensor<64x1xi32, #blocked>
  %18 = arith.constant {value = 64} : tensor<64x1xi32, #blocked>
  %19 = arith.muli %17, %18 : tensor<64x1xi32, #blocked>
  %20 = tt.addptr %13, %19 : tensor<64x1x!tt.ptr<f16>, #blocked>
  %21 = tt.broadcast %20 : tensor<64x64x!tt.ptr<f16>, #blocked>
  %22 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice2>
  %23 = tt.expand_dims %22 {axis = 0} : tensor<1x64xi32, #blocked>
  %24 = tt.broadcast %23 : tensor<64x64xi32, #blocked>
  %25 = tt.addptr %21, %24 : tensor<64x64x!tt.ptr<f16>, #blocked>
  %26 = tt.load %25 : tensor<64x64xf16, #blocked>
  %27 = tt.addptr %k_ptr, %7 : !tt.ptr<f16>
  %28 = tt.addptr %v_ptr, %7 : !tt.ptr<f16>
  %29 = arith.constant {value = 1.4426950408889634} : f32
  %30 = arith.mulf %sm_scale, %29 : f32
  %31 = arith.constant {value = -inf} : tensor<64xf32, #slice>
  %32 = arith.constant {value = 0.0} : tensor<64xf32, #slice>
  %33 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked1>
  %34 = arith.constant {value = 0} : i32
  %35 = arith.constant {value = 32} : i32
  %36 = ttg.convert_layout %33 : tensor<64x64xf32, #blocked2>
  %37 = ttg.convert_layout %32 : tensor<64xf32, #slice3>
  %38 = ttg.convert_layout %31 : tensor<64xf32, #slice3>
  %39, %40, %41 = scf.for %34, %N_CTX, %35, %36, %37, %38 {tt.divisibility_arg0 = [32]} : tensor<64x64xf32, #blocked2>, tensor<64xf32, #slice3>, tensor<64xf32, #slice3> {
  ^bb0(%42: i32, %43: tensor<64x64xf32, #blocked2>, %44: tensor<64xf32, #slice3>, %45: tensor<64xf32, #slice3>):
    %46 = tt.splat %27 : tensor<1x32x!tt.ptr<f16>, #blocked3>
    %47 = tt.splat %42 : tensor<32xi32, #slice4>
    %48 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice4>
    %49 = arith.addi %47, %48 : tensor<32xi32, #slice4>
    %50 = tt.expand_dims %49 {axis = 0} : tensor<1x32xi32, #blocked3>
    %51 = arith.constant {value = 64} : tensor<1x32xi32, #blocked3>
    %52 = arith.muli %50, %51 : tensor<1x32xi32, #blocked3>
    %53 = tt.addptr %46, %52 : tensor<1x32x!tt.ptr<f16>, #blocked3>
    %54 = tt.broadcast %53 : tensor<64x32x!tt.ptr<f16>, #blocked3>
    %55 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice5>
    %56 = tt.expand_dims %55 {axis = 1} : tensor<64x1xi32, #blocked3>
    %57 = tt.broadcast %56 : tensor<64x32xi32, #blocked3>
    %58 = tt.addptr %54, %57 : tensor<64x32x!tt.ptr<f16>, #blocked3>
    %59 = tt.load %58 : tensor<64x32xf16, #blocked3>
    %60 = arith.constant {value = 0.0} : tensor<64x32xf32, #blocked2>
    %61 = tt.dot %26, %59, %60 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #blocked2>
    %62 = tt.splat %30 : tensor<64x32xf32, #blocked2>
    %63 = arith.mulf %61, %62 : tensor<64x32xf32, #blocked2>
    %64 = tt.reduce %63 {axis = 1} : tensor<64xf32, #slice3> {
    ^bb0(%65: f32, %66: f32):
      %67 = arith.maxnumf %65, %66 : f32
      tt.reduce.return %67
    }
    %68 = arith.maxnumf %45, %64 : tensor<64xf32, #slice3>
    %69 = tt.expand_dims %68 {axis = 1} : tensor<64x1xf32, #blocked2>
    %70 = tt.broadcast %69 : tensor<64x32xf32, #blocked2>
    %71 = arith.subf %63, %70 : tensor<64x32xf32, #blocked2>
    %72 = math.exp2 %71 : tensor<64x32xf32, #blocked2>
    %73 = arith.subf %45, %68 : tensor<64xf32, #slice3>
    %74 = math.exp2 %73 : tensor<64xf32, #slice3>
    %75 = arith.mulf %44, %74 : tensor<64xf32, #slice3>
    %76 = tt.reduce %72 {axis = 1} : tensor<64xf32, #slice3> {
    ^bb0(%77: f32, %78: f32):
      %79 = arith.addf %77, %78 : f32
      tt.reduce.return %79
    }
    %80 = arith.addf %75, %76 : tensor<64xf32, #slice3>
    %81 = tt.splat %28 : tensor<32x1x!tt.ptr<f16>, #blocked>
    %82 = tt.splat %42 : tensor<32xi32, #slice1>
    %83 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice1>
    %84 = arith.addi %82, %83 : tensor<32xi32, #slice1>
    %85 = tt.expand_dims %84 {axis = 1} : tensor<32x1xi32, #blocked>
    %86 = arith.constant {value = 64} : tensor<32x1xi32, #blocked>
    %87 = arith.muli %85, %86 : tensor<32x1xi32, #blocked>
    %88 = tt.addptr %81, %87 : tensor<32x1x!tt.ptr<f16>, #blocked>
    %89 = tt.broadcast %88 : tensor<32x64x!tt.ptr<f16>, #blocked>
    %90 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice2>
    %91 = tt.expand_dims %90 {axis = 0} : tensor<1x64xi32, #blocked>
    %92 = tt.broadcast %91 : tensor<32x64xi32, #blocked>
    %93 = tt.addptr %89, %92 : tensor<32x64x!tt.ptr<f16>, #blocked>
    %94 = tt.load %93 : tensor<32x64xf16, #blocked>
    %95 = arith.truncf %72 : tensor<64x32xf16, #blocked2>
    %96 = tt.expand_dims %74 {axis = 1} : tensor<64x1xf32, #blocked2>
    %97 = tt.broadcast %96 : tensor<64x64xf32, #blocked2>
    %98 = arith.mulf %43, %97 : tensor<64x64xf32, #blocked2>
    %99 = tt.dot %95, %94, %98 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #blocked2>
    scf.yield %99, %80, %68
  }
  %100 = tt.expand_dims %40 {axis = 1} : tensor<64x1xf32, #blocked2>
  %101 = tt.broadcast %100 : tensor<64x64xf32, #blocked2>
  %102 = arith.divf %39, %101 : tensor<64x64xf32, #blocked2>
  %103 = tt.addptr %o_ptr, %7 : !tt.ptr<f16>
  %104 = arith.truncf %102 : tensor<64x64xf16, #blocked2>
  %105 = tt.splat %103 : tensor<64x1x!tt.ptr<f16>, #blocked2>
  %106 = tt.splat %8 : tensor<64xi32, #slice3>
  %107 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice3>
  %108 = arith.addi %106, %107 : tensor<64xi32, #slice3>
  %109 = tt.expand_dims %108 {axis = 1} : tensor<64x1xi32, #blocked2>
  %110 = arith.constant {value = 64} : tensor<64x1xi32, #blocked2>
  %111 = arith.muli %109, %110 : tensor<64x1xi32, #blocked2>
  %112 = tt.addptr %105, %111 : tensor<64x1x!tt.ptr<f16>, #blocked2>
  %113 = tt.broadcast %112 : tensor<64x64x!tt.ptr<f16>, #blocked2>
  %114 = tt.make_range {start = 0, end = 64} : tensor<64xi32, #slice6>
  %115 = tt.expand_dims %114 {axis = 0} : tensor<1x64xi32, #blocked2>
  %116 = tt.broadcast %115 : tensor<64x64xi32, #blocked2>
  %117 = tt.addptr %113, %116 : tensor<64x64x!tt.ptr<f16>, #blocked2>
  tt.store %117, %104
  %118 = arith.muli %1, %N_CTX : i32
  %119 = tt.addptr %lse_ptr, %118 : !tt.ptr<f32>
  %120 = tt.splat %119 : tensor<64x!tt.ptr<f32>, #slice>
  %121 = tt.addptr %120, %11 : tensor<64x!tt.ptr<f32>, #slice>
  %122 = math.log2 %40 : tensor<64xf32, #slice3>
  %123 = arith.addf %41, %122 : tensor<64xf32, #slice3>
  %124 = arith.constant {value = 1.4426950408889634} : tensor<64xf32, #slice3>
  %125 = arith.divf %123, %124 : tensor<64xf32, #slice3>
  %126 = ttg.convert_layout %125 : tensor<64xf32, #slice>
  tt.store %121, %126
  tt.return
}
