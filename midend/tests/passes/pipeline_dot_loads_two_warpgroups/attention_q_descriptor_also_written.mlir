// Attention through descriptors whose Q descriptor is also written (the output goes to Q's
// tensor as well): its tensor map cannot take a ring's swizzle, so Q, moved into the consumers'
// region, stays in registers (no shared-memory tile of its own).
module attributes {ttg.num-warps = 8, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>

tt.func public @attention_descriptors_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %qk_scale: f32, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = arith.constant {value = 128} : i32
  %1 = arith.constant {value = 128} : i64
  %2 = arith.constant {value = 1} : i64
  %3 = tt.make_tensor_descriptor %q_ptr, %N_CTX, %0, %1, %2 {padding = "zero"} : !tt.tensordesc<tensor<128x128xf16>>
  %4 = tt.make_tensor_descriptor %k_ptr, %N_CTX, %0, %1, %2 {padding = "zero"} : !tt.tensordesc<tensor<64x128xf16>>
  %5 = tt.make_tensor_descriptor %v_ptr, %N_CTX, %0, %1, %2 {padding = "zero"} : !tt.tensordesc<tensor<64x128xf16>>
  %6 = tt.make_tensor_descriptor %o_ptr, %N_CTX, %0, %1, %2 {padding = "zero"} : !tt.tensordesc<tensor<128x128xf16>>
  %7 = tt.get_program_id {axis = 0} : i32
  %8 = arith.muli %7, %0 : i32
  %9 = arith.constant {value = 0} : i32
  %10 = tt.descriptor_load %3, %8, %9 : tensor<128x128xf16, #blocked>
  %11 = ttg.convert_layout %10 : tensor<128x128xf16, #mma>
  %12 = arith.constant {value = -inf} : tensor<128xf32, #blocked1>
  %13 = arith.constant {value = 0.0} : tensor<128xf32, #blocked1>
  %14 = arith.constant {value = 0.0} : tensor<128x128xf32, #blocked>
  %15 = arith.constant {value = 64} : i32
  %16 = arith.constant {value = 0.0} : tensor<128x64xf32, #blocked2>
  %17 = tt.splat %qk_scale : tensor<128xf32, #blocked1>
  %18 = tt.splat %qk_scale : tensor<128x64xf32, #blocked2>
  %19 = ttg.convert_layout %14 : tensor<128x128xf32, #mma>
  %20 = ttg.convert_layout %13 : tensor<128xf32, #slice>
  %21 = ttg.convert_layout %12 : tensor<128xf32, #slice>
  %22, %23, %24 = scf.for %9, %N_CTX, %15, %19, %20, %21 : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice> {
  ^bb0(%25: i32, %26: tensor<128x128xf32, #mma>, %27: tensor<128xf32, #slice>, %28: tensor<128xf32, #slice>):
    %29 = tt.descriptor_load %4, %25, %9 : tensor<64x128xf16, #blocked>
    %30 = tt.trans %29 {order = [1, 0]} : tensor<128x64xf16, #blocked2>
    %31 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
    %32 = ttng.warp_group_dot %11, %30, %31 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x64xf32, #mma1>
    %33 = tt.reduce %32 {axis = 1} : tensor<128xf32, #slice> {
    ^bb0(%34: f32, %35: f32):
      %36 = arith.maxnumf %34, %35 : f32
      tt.reduce.return %36
    }
    %37 = tt.splat %qk_scale : tensor<128xf32, #slice>
    %38 = arith.mulf %33, %37 : tensor<128xf32, #slice>
    %39 = arith.maxnumf %28, %38 : tensor<128xf32, #slice>
    %40 = tt.splat %qk_scale : tensor<128x64xf32, #mma1>
    %41 = arith.mulf %32, %40 : tensor<128x64xf32, #mma1>
    %42 = tt.expand_dims %39 {axis = 1} : tensor<128x1xf32, #mma1>
    %43 = tt.broadcast %42 : tensor<128x64xf32, #mma1>
    %44 = arith.subf %41, %43 : tensor<128x64xf32, #mma1>
    %45 = math.exp2 %44 : tensor<128x64xf32, #mma1>
    %46 = arith.subf %28, %39 : tensor<128xf32, #slice>
    %47 = math.exp2 %46 : tensor<128xf32, #slice>
    %48 = arith.mulf %27, %47 : tensor<128xf32, #slice>
    %49 = tt.reduce %45 {axis = 1} : tensor<128xf32, #slice> {
    ^bb0(%50: f32, %51: f32):
      %52 = arith.addf %50, %51 : f32
      tt.reduce.return %52
    }
    %53 = arith.addf %48, %49 : tensor<128xf32, #slice>
    %54 = tt.expand_dims %47 {axis = 1} : tensor<128x1xf32, #mma1>
    %55 = tt.broadcast %54 : tensor<128x128xf32, #mma1>
    %56 = ttg.convert_layout %26 : tensor<128x128xf32, #mma1>
    %57 = arith.mulf %56, %55 : tensor<128x128xf32, #mma1>
    %58 = tt.descriptor_load %5, %25, %9 : tensor<64x128xf16, #blocked>
    %59 = arith.truncf %45 : tensor<128x64xf16, #mma1>
    %60 = ttg.convert_layout %57 : tensor<128x128xf32, #mma>
    %61 = ttng.warp_group_dot %59, %58, %60 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32, #mma>
    %62 = ttg.convert_layout %61 : tensor<128x128xf32, #blocked>
    %63 = ttg.convert_layout %39 : tensor<128xf32, #blocked1>
    %64 = ttg.convert_layout %53 : tensor<128xf32, #blocked1>
    scf.yield %61, %53, %39
  }
  %65 = ttg.convert_layout %24 : tensor<128xf32, #blocked1>
  %66 = tt.expand_dims %23 {axis = 1} : tensor<128x1xf32, #mma1>
  %67 = tt.broadcast %66 : tensor<128x128xf32, #mma1>
  %68 = ttg.convert_layout %67 : tensor<128x128xf32, #mma>
  %69 = arith.divf %22, %68 : tensor<128x128xf32, #mma>
  %70 = arith.truncf %69 : tensor<128x128xf16, #mma>
  %71 = ttg.convert_layout %70 : tensor<128x128xf16, #blocked>
  tt.descriptor_store %6, %71, %8, %9
  tt.descriptor_store %3, %71, %8, %9
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 8, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 64, 16]}>

tt.func public @attention_descriptors_kernel(%q_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %qk_scale: f32, %N_CTX: i32 {tt.divisibility = 16}) {
  %0 = arith.constant {value = 128} : i32
  %1 = arith.constant {value = 128} : i64
  %2 = arith.constant {value = 1} : i64
  %3 = tt.make_tensor_descriptor %q_ptr, %N_CTX, %0, %1, %2 {padding = "zero"} : !tt.tensordesc<tensor<128x128xf16>>
  %4 = tt.make_tensor_descriptor %k_ptr, %N_CTX, %0, %1, %2 {padding = "zero", swizzle_bytes = 128} : !tt.tensordesc<tensor<64x128xf16>>
  %5 = tt.make_tensor_descriptor %v_ptr, %N_CTX, %0, %1, %2 {padding = "zero", swizzle_bytes = 128} : !tt.tensordesc<tensor<64x128xf16>>
  %6 = tt.make_tensor_descriptor %o_ptr, %N_CTX, %0, %1, %2 {padding = "zero"} : !tt.tensordesc<tensor<128x128xf16>>
  %7 = arith.constant {value = 0} : i32
  %8 = arith.constant {value = 64} : i32
  %9 = ttg.local_alloc {slots = 4, shape = [128, 64], elem_bytes = 2, column_major = true, swizzle_bytes = 128, tma = true} : i32
  %10 = ttg.local_alloc {slots = 4, shape = [64, 128], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %11 = ttng.init_barriers {count = 4, arrivals = 8} : i32
  %12 = arith.constant {value = 0} : i32
  %13 = arith.constant {value = 1} : i32
  %14 = arith.constant {value = 0} : i32
  %15 = arith.constant {value = 0} : i32
  %16 = ttng.program_grid {axis = 0} : i32
  %17 = ttng.program_grid {axis = 1} : i32
  %18 = ttng.program_grid {axis = 2} : i32
  %19 = arith.muli %16, %17 : i32
  %20 = arith.muli %19, %18 : i32
  %21 = tt.get_program_id {axis = 0} : i32
  %22 = tt.get_num_programs {axis = 0} : i32
  ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} {
    %23, %24 = scf.for %21, %20, %22, %14, %15 {persistent = true} : i32, i32 {
    ^bb0(%25: i32, %26: i32, %27: i32):
      %28 = arith.remui %25, %16 : i32
      %29 = arith.muli %28, %0 : i32
      %30 = arith.constant {value = -inf} : tensor<128xf32, #blocked>
      %31 = arith.constant {value = 0.0} : tensor<128xf32, #blocked>
      %32 = arith.constant {value = 0.0} : tensor<128x128xf32, #blocked1>
      %33 = ttg.convert_layout %32 : tensor<128x128xf32, #mma>
      %34 = ttg.convert_layout %31 : tensor<128xf32, #slice>
      %35 = ttg.convert_layout %30 : tensor<128xf32, #slice>
      %36 = tt.descriptor_load %3, %29, %7 : tensor<128x128xf16, #blocked1>
      %37 = ttg.convert_layout %36 : tensor<128x128xf16, #mma>
      %38 = arith.cmpi %7, %N_CTX {predicate = "slt"} : i1
      ttng.wait_barrier %9, %26, %27, %38
      %39 = ttg.local_load %9, %26 : tensor<128x64xf16, #blocked2>
      %40 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
      %41 = ttng.warp_group_dot %37, %39, %40, %38 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
      %42 = ttng.warp_group_dot_wait %41 {pendings = 0} : tensor<128x64xf32, #mma1>
      %43, %44, %45, %46, %47, %48 = scf.for %7, %N_CTX, %8, %33, %34, %35, %26, %27, %42 : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, tensor<128x64xf32, #mma1> {
      ^bb0(%49: i32, %50: tensor<128x128xf32, #mma>, %51: tensor<128xf32, #slice>, %52: tensor<128xf32, #slice>, %53: i32, %54: i32, %55: tensor<128x64xf32, #mma1>):
        ttng.wait_barrier %9, %53, %54
        ttng.wait_barrier %10, %53, %54
        %56 = ttg.local_load %10, %53 : tensor<64x128xf16, #blocked1>
        %57 = arith.constant {value = 3} : i32
        %58 = arith.cmpi %53, %57 {predicate = "eq"} : i1
        %59 = arith.addi %53, %13 : i32
        %60 = arith.select %58, %12, %59 : i32
        %61 = arith.xori %54, %13 : i32
        %62 = arith.select %58, %61, %54 : i32
        %63 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
        %64 = tt.reduce %55 {axis = 1} : tensor<128xf32, #slice> {
        ^bb0(%65: f32, %66: f32):
          %67 = arith.maxnumf %65, %66 : f32
          tt.reduce.return %67
        }
        %68 = tt.splat %qk_scale : tensor<128xf32, #slice>
        %69 = arith.mulf %64, %68 : tensor<128xf32, #slice>
        %70 = arith.maxnumf %52, %69 : tensor<128xf32, #slice>
        %71 = tt.splat %qk_scale : tensor<128x64xf32, #mma1>
        %72 = arith.mulf %55, %71 : tensor<128x64xf32, #mma1>
        %73 = tt.expand_dims %70 {axis = 1} : tensor<128x1xf32, #mma1>
        %74 = tt.broadcast %73 : tensor<128x64xf32, #mma1>
        %75 = arith.subf %72, %74 : tensor<128x64xf32, #mma1>
        %76 = math.exp2 %75 : tensor<128x64xf32, #mma1>
        %77 = arith.subf %52, %70 : tensor<128xf32, #slice>
        %78 = math.exp2 %77 : tensor<128xf32, #slice>
        %79 = arith.mulf %51, %78 : tensor<128xf32, #slice>
        %80 = tt.reduce %76 {axis = 1} : tensor<128xf32, #slice> {
        ^bb0(%81: f32, %82: f32):
          %83 = arith.addf %81, %82 : f32
          tt.reduce.return %83
        }
        %84 = arith.addf %79, %80 : tensor<128xf32, #slice>
        %85 = tt.expand_dims %78 {axis = 1} : tensor<128x1xf32, #mma1>
        %86 = tt.broadcast %85 : tensor<128x128xf32, #mma1>
        %87 = ttng.warp_group_dot_wait %50 {pendings = 0} : tensor<128x128xf32, #mma>
        %88 = arith.constant {value = 4} : i32
        %89 = arith.constant {value = 3} : i32
        %90 = arith.addi %53, %89 : i32
        %91 = arith.cmpi %90, %88 {predicate = "sge"} : i1
        %92 = arith.subi %90, %88 : i32
        %93 = arith.select %91, %92, %90 : i32
        %94 = arith.cmpi %49, %7 {predicate = "sgt"} : i1
        ttng.arrive_barrier %11, %93, %94
        %95 = ttg.convert_layout %87 : tensor<128x128xf32, #mma1>
        %96 = arith.mulf %95, %86 : tensor<128x128xf32, #mma1>
        %97 = arith.truncf %76 : tensor<128x64xf16, #mma1>
        %98 = ttg.convert_layout %96 : tensor<128x128xf32, #mma>
        %99 = arith.addi %49, %8 : i32
        %100 = arith.cmpi %99, %N_CTX {predicate = "slt"} : i1
        ttng.wait_barrier %9, %60, %62, %100
        %101 = ttg.local_load %9, %60 : tensor<128x64xf16, #blocked2>
        %102 = ttng.warp_group_dot %37, %101, %63, %100 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
        %103 = ttng.warp_group_dot %97, %56, %98 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x128xf32, #mma>
        %104 = ttng.warp_group_dot_wait %102 {pendings = 1} : tensor<128x64xf32, #mma1>
        scf.yield %103, %84, %70, %60, %62, %104
      }
      %105 = ttng.warp_group_dot_wait %43 {pendings = 0} : tensor<128x128xf32, #mma>
      %106 = arith.cmpi %7, %N_CTX {predicate = "slt"} : i1
      %107 = arith.constant {value = 4} : i32
      %108 = arith.constant {value = 3} : i32
      %109 = arith.addi %46, %108 : i32
      %110 = arith.cmpi %109, %107 {predicate = "sge"} : i1
      %111 = arith.subi %109, %107 : i32
      %112 = arith.select %110, %111, %109 : i32
      ttng.arrive_barrier %11, %112, %106
      %113 = tt.expand_dims %44 {axis = 1} : tensor<128x1xf32, #mma1>
      %114 = tt.broadcast %113 : tensor<128x128xf32, #mma1>
      %115 = ttg.convert_layout %114 : tensor<128x128xf32, #mma>
      %116 = arith.divf %105, %115 : tensor<128x128xf32, #mma>
      %117 = arith.truncf %116 : tensor<128x128xf16, #mma>
      %118 = ttg.convert_layout %117 : tensor<128x128xf16, #blocked1>
      tt.descriptor_store %6, %118, %29, %7
      tt.descriptor_store %3, %118, %29, %7
      scf.yield %46, %47
    }
    scf.yield
  } producer {
    %119, %120 = scf.for %21, %20, %22, %14, %15 {persistent = true} : i32, i32 {
    ^bb0(%121: i32, %122: i32, %123: i32):
      %124, %125 = scf.for %7, %N_CTX, %8, %122, %123 : i32, i32 {
      ^bb0(%126: i32, %127: i32, %128: i32):
        %129 = arith.xori %128, %13 : i32
        ttng.wait_barrier %11, %127, %129
        %130 = arith.constant {value = true} : i1
        ttng.async_tma_copy_global_to_local %9, %127, %130, %4, %126, %7
        ttng.async_tma_copy_global_to_local %10, %127, %130, %5, %126, %7
        %131 = arith.constant {value = 3} : i32
        %132 = arith.cmpi %127, %131 {predicate = "eq"} : i1
        %133 = arith.addi %127, %13 : i32
        %134 = arith.select %132, %12, %133 : i32
        %135 = arith.xori %128, %13 : i32
        %136 = arith.select %132, %135, %128 : i32
        scf.yield %134, %136
      }
      scf.yield %124, %125
    }
  }
  gpu.barrier
  ttg.local_dealloc %11
  ttg.local_dealloc %10
  ttg.local_dealloc %9
  tt.return
}
