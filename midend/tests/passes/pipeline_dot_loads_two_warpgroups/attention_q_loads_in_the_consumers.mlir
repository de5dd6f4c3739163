// Attention through descriptors, warp-specialized unasked: Q, loaded once before the loop and
// read only by the consumers' dots, moves into the consumers' region, so that the producer
// starts copying K and V while Q is loaded; there TMA copies it into a swizzled shared-memory
// tile of its own, which the dots read as their A operand (no conversion, no registers).
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
  %3 = tt.make_tensor_descriptor %q_ptr, %N_CTX, %0, %1, %2 {padding = "zero", swizzle_bytes = 128} : !tt.tensordesc<tensor<128x128xf16>>
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
  %16 = ttg.local_alloc {slots = 1, shape = [128, 128], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %17 = ttng.init_barriers {count = 1, arrivals = 8} : i32
  %18 = ttng.program_grid {axis = 0} : i32
  %19 = ttng.program_grid {axis = 1} : i32
  %20 = ttng.program_grid {axis = 2} : i32
  %21 = arith.muli %18, %19 : i32
  %22 = arith.muli %21, %20 : i32
  %23 = tt.get_program_id {axis = 0} : i32
  %24 = tt.get_num_programs {axis = 0} : i32
  %25 = arith.constant {value = 0} : i32
  ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} {
    %26, %27, %28 = scf.for %23, %22, %24, %14, %15, %25 {persistent = true} : i32, i32, i32 {
    ^bb0(%29: i32, %30: i32, %31: i32, %32: i32):
      %33 = arith.remui %29, %18 : i32
      %34 = arith.muli %33, %0 : i32
      %35 = arith.constant {value = -inf} : tensor<128xf32, #blocked>
      %36 = arith.constant {value = 0.0} : tensor<128xf32, #blocked>
      %37 = arith.constant {value = 0.0} : tensor<128x128xf32, #blocked1>
      %38 = ttg.convert_layout %37 : tensor<128x128xf32, #mma>
      %39 = ttg.convert_layout %36 : tensor<128xf32, #slice>
      %40 = ttg.convert_layout %35 : tensor<128xf32, #slice>
      %41 = arith.constant {value = 0} : i32
      ttng.wait_barrier %16, %41, %32
      %42 = ttg.local_load %16, %41 : tensor<128x128xf16, #blocked1>
      %43 = arith.cmpi %7, %N_CTX {predicate = "slt"} : i1
      ttng.wait_barrier %9, %30, %31, %43
      %44 = ttg.local_load %9, %30 : tensor<128x64xf16, #blocked2>
      %45 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
      %46 = ttng.warp_group_dot %42, %44, %45, %43 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
      %47 = ttng.warp_group_dot_wait %46 {pendings = 0} : tensor<128x64xf32, #mma1>
      %48, %49, %50, %51, %52, %53 = scf.for %7, %N_CTX, %8, %38, %39, %40, %30, %31, %47 : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, tensor<128x64xf32, #mma1> {
      ^bb0(%54: i32, %55: tensor<128x128xf32, #mma>, %56: tensor<128xf32, #slice>, %57: tensor<128xf32, #slice>, %58: i32, %59: i32, %60: tensor<128x64xf32, #mma1>):
        ttng.wait_barrier %9, %58, %59
        ttng.wait_barrier %10, %58, %59
        %61 = ttg.local_load %10, %58 : tensor<64x128xf16, #blocked1>
        %62 = arith.constant {value = 3} : i32
        %63 = arith.cmpi %58, %62 {predicate = "eq"} : i1
        %64 = arith.addi %58, %13 : i32
        %65 = arith.select %63, %12, %64 : i32
        %66 = arith.xori %59, %13 : i32
        %67 = arith.select %63, %66, %59 : i32
        %68 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
        %69 = tt.reduce %60 {axis = 1} : tensor<128xf32, #slice> {
        ^bb0(%70: f32, %71: f32):
          %72 = arith.maxnumf %70, %71 : f32
          tt.reduce.return %72
        }
        %73 = tt.splat %qk_scale : tensor<128xf32, #slice>
        %74 = arith.mulf %69, %73 : tensor<128xf32, #slice>
        %75 = arith.maxnumf %57, %74 : tensor<128xf32, #slice>
        %76 = tt.splat %qk_scale : tensor<128x64xf32, #mma1>
        %77 = arith.mulf %60, %76 : tensor<128x64xf32, #mma1>
        %78 = tt.expand_dims %75 {axis = 1} : tensor<128x1xf32, #mma1>
        %79 = tt.broadcast %78 : tensor<128x64xf32, #mma1>
        %80 = arith.subf %77, %79 : tensor<128x64xf32, #mma1>
        %81 = math.exp2 %80 : tensor<128x64xf32, #mma1>
        %82 = arith.subf %57, %75 : tensor<128xf32, #slice>
        %83 = math.exp2 %82 : tensor<128xf32, #slice>
        %84 = arith.mulf %56, %83 : tensor<128xf32, #slice>
        %85 = tt.reduce %81 {axis = 1} : tensor<128xf32, #slice> {
        ^bb0(%86: f32, %87: f32):
          %88 = arith.addf %86, %87 : f32
          tt.reduce.return %88
        }
        %89 = arith.addf %84, %85 : tensor<128xf32, #slice>
        %90 = tt.expand_dims %83 {axis = 1} : tensor<128x1xf32, #mma1>
        %91 = tt.broadcast %90 : tensor<128x128xf32, #mma1>
        %92 = ttng.warp_group_dot_wait %55 {pendings = 0} : tensor<128x128xf32, #mma>
        %93 = arith.constant {value = 4} : i32
        %94 = arith.constant {value = 3} : i32
        %95 = arith.addi %58, %94 : i32
        %96 = arith.cmpi %95, %93 {predicate = "sge"} : i1
        %97 = arith.subi %95, %93 : i32
        %98 = arith.select %96, %97, %95 : i32
        %99 = arith.cmpi %54, %7 {predicate = "sgt"} : i1
        ttng.arrive_barrier %11, %98, %99
        %100 = ttg.convert_layout %92 : tensor<128x128xf32, #mma1>
        %101 = arith.mulf %100, %91 : tensor<128x128xf32, #mma1>
        %102 = arith.truncf %81 : tensor<128x64xf16, #mma1>
        %103 = ttg.convert_layout %101 : tensor<128x128xf32, #mma>
        %104 = arith.addi %54, %8 : i32
        %105 = arith.cmpi %104, %N_CTX {predicate = "slt"} : i1
        ttng.wait_barrier %9, %65, %67, %105
        %106 = ttg.local_load %9, %65 : tensor<128x64xf16, #blocked2>
        %107 = ttng.warp_group_dot %42, %106, %68, %105 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
        %108 = ttng.warp_group_dot %102, %61, %103 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x128xf32, #mma>
        %109 = ttng.warp_group_dot_wait %107 {pendings = 1} : tensor<128x64xf32, #mma1>
        scf.yield %108, %89, %75, %65, %67, %109
      }
      %110 = ttng.warp_group_dot_wait %48 {pendings = 0} : tensor<128x128xf32, #mma>
      %111 = arith.cmpi %7, %N_CTX {predicate = "slt"} : i1
      %112 = arith.constant {value = 4} : i32
      %113 = arith.constant {value = 3} : i32
      %114 = arith.addi %51, %113 : i32
      %115 = arith.cmpi %114, %112 {predicate = "sge"} : i1
      %116 = arith.subi %114, %112 : i32
      %117 = arith.select %115, %116, %114 : i32
      ttng.arrive_barrier %11, %117, %111
      %118 = arith.constant {value = 0} : i32
      %119 = arith.constant {value = true} : i1
      ttng.arrive_barrier %17, %118, %119
      %120 = tt.expand_dims %49 {axis = 1} : tensor<128x1xf32, #mma1>
      %121 = tt.broadcast %120 : tensor<128x128xf32, #mma1>
      %122 = ttg.convert_layout %121 : tensor<128x128xf32, #mma>
      %123 = arith.divf %110, %122 : tensor<128x128xf32, #mma>
      %124 = arith.truncf %123 : tensor<128x128xf16, #mma>
      %125 = ttg.convert_layout %124 : tensor<128x128xf16, #blocked1>
      tt.descriptor_store %6, %125, %34, %7
      %126 = arith.constant {value = 1} : i32
      %127 = arith.xori %32, %126 : i32
      scf.yield %51, %52, %127
    }
    scf.yield
  } producer {
    %128, %129, %130 = scf.for %23, %22, %24, %14, %15, %25 {persistent = true} : i32, i32, i32 {
    ^bb0(%131: i32, %132: i32, %133: i32, %134: i32):
      %135 = arith.remui %131, %18 : i32
      %136 = arith.muli %135, %0 : i32
      %137 = arith.constant {value = 0} : i32
      %138 = arith.constant {value = 1} : i32
      %139 = arith.xori %134, %138 : i32
      ttng.wait_barrier %17, %137, %139
      %140 = arith.constant {value = true} : i1
      ttng.async_tma_copy_global_to_local %16, %137, %140, %3, %136, %7
      %141, %142 = scf.for %7, %N_CTX, %8, %132, %133 : i32, i32 {
      ^bb0(%143: i32, %144: i32, %145: i32):
        %146 = arith.xori %145, %13 : i32
        ttng.wait_barrier %11, %144, %146
        %147 = arith.constant {value = true} : i1
        ttng.async_tma_copy_global_to_local %9, %144, %147, %4, %143, %7
        ttng.async_tma_copy_global_to_local %10, %144, %147, %5, %143, %7
        %148 = arith.constant {value = 3} : i32
        %149 = arith.cmpi %144, %148 {predicate = "eq"} : i1
        %150 = arith.addi %144, %13 : i32
        %151 = arith.select %149, %12, %150 : i32
        %152 = arith.xori %145, %13 : i32
        %153 = arith.select %149, %152, %145 : i32
        scf.yield %151, %153
      }
      scf.yield %141, %142, %139
    }
  }
  gpu.barrier
  ttg.local_dealloc %17
  ttg.local_dealloc %16
  ttg.local_dealloc %11
  ttg.local_dealloc %10
  ttg.local_dealloc %9
  tt.return
}
