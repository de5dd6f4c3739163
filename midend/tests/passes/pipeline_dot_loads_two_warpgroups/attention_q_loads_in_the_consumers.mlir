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
  %7 = tt.get_program_id {axis = 0} : i32
  %8 = arith.muli %7, %0 : i32
  %9 = arith.constant {value = 0} : i32
  %10 = arith.constant {value = -inf} : tensor<128xf32, #blocked>
  %11 = arith.constant {value = 0.0} : tensor<128xf32, #blocked>
  %12 = arith.constant {value = 0.0} : tensor<128x128xf32, #blocked1>
  %13 = arith.constant {value = 64} : i32
  %14 = ttg.convert_layout %12 : tensor<128x128xf32, #mma>
  %15 = ttg.convert_layout %11 : tensor<128xf32, #slice>
  %16 = ttg.convert_layout %10 : tensor<128xf32, #slice>
  %17 = ttg.local_alloc {slots = 4, shape = [128, 64], elem_bytes = 2, column_major = true, swizzle_bytes = 128, tma = true} : i32
  %18 = ttg.local_alloc {slots = 4, shape = [64, 128], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %19 = ttng.init_barriers {count = 4, arrivals = 8} : i32
  %20 = arith.constant {value = 0} : i32
  %21 = arith.constant {value = 1} : i32
  %22 = ttg.local_alloc {slots = 1, shape = [128, 128], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %23, %24, %25 = ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice> {
    %26 = arith.constant {value = 0} : i32
    %27 = arith.constant {value = true} : i1
    ttng.async_tma_copy_global_to_local %22, %26, %27, %3, %8, %9
    ttng.wait_barrier %22, %26, %26
    %28 = ttg.local_load %22, %26 : tensor<128x128xf16, #blocked1>
    %29 = arith.cmpi %9, %N_CTX {predicate = "slt"} : i1
    %30 = arith.constant {value = 0} : i32
    ttng.wait_barrier %17, %30, %30, %29
    %31 = ttg.local_load %17, %30 : tensor<128x64xf16, #blocked2>
    %32 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
    %33 = ttng.warp_group_dot %28, %31, %32, %29 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
    %34 = ttng.warp_group_dot_wait %33 {pendings = 0} : tensor<128x64xf32, #mma1>
    %35, %36, %37, %38, %39, %40 = scf.for %9, %N_CTX, %13, %14, %15, %16, %20, %20, %34 : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, tensor<128x64xf32, #mma1> {
    ^bb0(%41: i32, %42: tensor<128x128xf32, #mma>, %43: tensor<128xf32, #slice>, %44: tensor<128xf32, #slice>, %45: i32, %46: i32, %47: tensor<128x64xf32, #mma1>):
      ttng.wait_barrier %17, %45, %46
      ttng.wait_barrier %18, %45, %46
      %48 = ttg.local_load %18, %45 : tensor<64x128xf16, #blocked1>
      %49 = arith.constant {value = 3} : i32
      %50 = arith.cmpi %45, %49 {predicate = "eq"} : i1
      %51 = arith.addi %45, %21 : i32
      %52 = arith.select %50, %20, %51 : i32
      %53 = arith.xori %46, %21 : i32
      %54 = arith.select %50, %53, %46 : i32
      %55 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
      %56 = tt.reduce %47 {axis = 1} : tensor<128xf32, #slice> {
      ^bb0(%57: f32, %58: f32):
        %59 = arith.maxnumf %57, %58 : f32
        tt.reduce.return %59
      }
      %60 = tt.splat %qk_scale : tensor<128xf32, #slice>
      %61 = arith.mulf %56, %60 : tensor<128xf32, #slice>
      %62 = arith.maxnumf %44, %61 : tensor<128xf32, #slice>
      %63 = tt.splat %qk_scale : tensor<128x64xf32, #mma1>
      %64 = arith.mulf %47, %63 : tensor<128x64xf32, #mma1>
      %65 = tt.expand_dims %62 {axis = 1} : tensor<128x1xf32, #mma1>
      %66 = tt.broadcast %65 : tensor<128x64xf32, #mma1>
      %67 = arith.subf %64, %66 : tensor<128x64xf32, #mma1>
      %68 = math.exp2 %67 : tensor<128x64xf32, #mma1>
      %69 = arith.subf %44, %62 : tensor<128xf32, #slice>
      %70 = math.exp2 %69 : tensor<128xf32, #slice>
      %71 = arith.mulf %43, %70 : tensor<128xf32, #slice>
      %72 = tt.reduce %68 {axis = 1} : tensor<128xf32, #slice> {
      ^bb0(%73: f32, %74: f32):
        %75 = arith.addf %73, %74 : f32
        tt.reduce.return %75
      }
      %76 = arith.addf %71, %72 : tensor<128xf32, #slice>
      %77 = tt.expand_dims %70 {axis = 1} : tensor<128x1xf32, #mma1>
      %78 = tt.broadcast %77 : tensor<128x128xf32, #mma1>
      %79 = ttng.warp_group_dot_wait %42 {pendings = 0} : tensor<128x128xf32, #mma>
      %80 = arith.constant {value = 4} : i32
      %81 = arith.constant {value = 3} : i32
      %82 = arith.addi %45, %81 : i32
      %83 = arith.cmpi %82, %80 {predicate = "sge"} : i1
      %84 = arith.subi %82, %80 : i32
      %85 = arith.select %83, %84, %82 : i32
      %86 = arith.cmpi %41, %9 {predicate = "sgt"} : i1
      ttng.arrive_barrier %19, %85, %86
      %87 = ttg.convert_layout %79 : tensor<128x128xf32, #mma1>
      %88 = arith.mulf %87, %78 : tensor<128x128xf32, #mma1>
      %89 = arith.truncf %68 : tensor<128x64xf16, #mma1>
      %90 = ttg.convert_layout %88 : tensor<128x128xf32, #mma>
      %91 = arith.addi %41, %13 : i32
      %92 = arith.cmpi %91, %N_CTX {predicate = "slt"} : i1
      ttng.wait_barrier %17, %52, %54, %92
      %93 = ttg.local_load %17, %52 : tensor<128x64xf16, #blocked2>
      %94 = ttng.warp_group_dot %28, %93, %55, %92 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
      %95 = ttng.warp_group_dot %89, %48, %90 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x128xf32, #mma>
      %96 = ttng.warp_group_dot_wait %94 {pendings = 1} : tensor<128x64xf32, #mma1>
      scf.yield %95, %76, %62, %52, %54, %96
    }
    %97 = ttng.warp_group_dot_wait %35 {pendings = 0} : tensor<128x128xf32, #mma>
    scf.yield %97, %36, %37
  } producer {
    %98, %99 = scf.for %9, %N_CTX, %13, %20, %20 : i32, i32 {
    ^bb0(%100: i32, %101: i32, %102: i32):
      %103 = arith.xori %102, %21 : i32
      ttng.wait_barrier %19, %101, %103
      %104 = arith.constant {value = true} : i1
      ttng.async_tma_copy_global_to_local %17, %101, %104, %4, %100, %9
      ttng.async_tma_copy_global_to_local %18, %101, %104, %5, %100, %9
      %105 = arith.constant {value = 3} : i32
      %106 = arith.cmpi %101, %105 {predicate = "eq"} : i1
      %107 = arith.addi %101, %21 : i32
      %108 = arith.select %106, %20, %107 : i32
      %109 = arith.xori %102, %21 : i32
      %110 = arith.select %106, %109, %102 : i32
      scf.yield %108, %110
    }
  }
  gpu.barrier
  ttg.local_dealloc %22
  ttg.local_dealloc %19
  ttg.local_dealloc %18
  ttg.local_dealloc %17
  %111 = tt.expand_dims %24 {axis = 1} : tensor<128x1xf32, #mma1>
  %112 = tt.broadcast %111 : tensor<128x128xf32, #mma1>
  %113 = ttg.convert_layout %112 : tensor<128x128xf32, #mma>
  %114 = arith.divf %23, %113 : tensor<128x128xf32, #mma>
  %115 = arith.truncf %114 : tensor<128x128xf16, #mma>
  %116 = ttg.convert_layout %115 : tensor<128x128xf16, #blocked1>
  tt.descriptor_store %6, %116, %8, %9
  tt.return
}
