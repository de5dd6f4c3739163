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
  %22, %23, %24 = ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice> {
    %25 = tt.descriptor_load %3, %8, %9 : tensor<128x128xf16, #blocked1>
    %26 = ttg.convert_layout %25 : tensor<128x128xf16, #mma>
    %27 = arith.cmpi %9, %N_CTX {predicate = "slt"} : i1
    %28 = arith.constant {value = 0} : i32
    ttng.wait_barrier %17, %28, %28, %27
    %29 = ttg.local_load %17, %28 : tensor<128x64xf16, #blocked2>
    %30 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
    %31 = ttng.warp_group_dot %26, %29, %30, %27 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
    %32 = ttng.warp_group_dot_wait %31 {pendings = 0} : tensor<128x64xf32, #mma1>
    %33, %34, %35, %36, %37, %38 = scf.for %9, %N_CTX, %13, %14, %15, %16, %20, %20, %32 : tensor<128x128xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, tensor<128x64xf32, #mma1> {
    ^bb0(%39: i32, %40: tensor<128x128xf32, #mma>, %41: tensor<128xf32, #slice>, %42: tensor<128xf32, #slice>, %43: i32, %44: i32, %45: tensor<128x64xf32, #mma1>):
      ttng.wait_barrier %17, %43, %44
      ttng.wait_barrier %18, %43, %44
      %46 = ttg.local_load %18, %43 : tensor<64x128xf16, #blocked1>
      %47 = arith.constant {value = 3} : i32
      %48 = arith.cmpi %43, %47 {predicate = "eq"} : i1
      %49 = arith.addi %43, %21 : i32
      %50 = arith.select %48, %20, %49 : i32
      %51 = arith.xori %44, %21 : i32
      %52 = arith.select %48, %51, %44 : i32
      %53 = arith.constant {value = 0.0} : tensor<128x64xf32, #mma1>
      %54 = tt.reduce %45 {axis = 1} : tensor<128xf32, #slice> {
      ^bb0(%55: f32, %56: f32):
        %57 = arith.maxnumf %55, %56 : f32
        tt.reduce.return %57
      }
      %58 = tt.splat %qk_scale : tensor<128xf32, #slice>
      %59 = arith.mulf %54, %58 : tensor<128xf32, #slice>
      %60 = arith.maxnumf %42, %59 : tensor<128xf32, #slice>
      %61 = tt.splat %qk_scale : tensor<128x64xf32, #mma1>
      %62 = arith.mulf %45, %61 : tensor<128x64xf32, #mma1>
      %63 = tt.expand_dims %60 {axis = 1} : tensor<128x1xf32, #mma1>
      %64 = tt.broadcast %63 : tensor<128x64xf32, #mma1>
      %65 = arith.subf %62, %64 : tensor<128x64xf32, #mma1>
      %66 = math.exp2 %65 : tensor<128x64xf32, #mma1>
      %67 = arith.subf %42, %60 : tensor<128xf32, #slice>
      %68 = math.exp2 %67 : tensor<128xf32, #slice>
      %69 = arith.mulf %41, %68 : tensor<128xf32, #slice>
      %70 = tt.reduce %66 {axis = 1} : tensor<128xf32, #slice> {
      ^bb0(%71: f32, %72: f32):
        %73 = arith.addf %71, %72 : f32
        tt.reduce.return %73
      }
      %74 = arith.addf %69, %70 : tensor<128xf32, #slice>
      %75 = tt.expand_dims %68 {axis = 1} : tensor<128x1xf32, #mma1>
      %76 = tt.broadcast %75 : tensor<128x128xf32, #mma1>
      %77 = ttng.warp_group_dot_wait %40 {pendings = 0} : tensor<128x128xf32, #mma>
      %78 = arith.constant {value = 4} : i32
      %79 = arith.constant {value = 3} : i32
      %80 = arith.addi %43, %79 : i32
      %81 = arith.cmpi %80, %78 {predicate = "sge"} : i1
      %82 = arith.subi %80, %78 : i32
      %83 = arith.select %81, %82, %80 : i32
      %84 = arith.cmpi %39, %9 {predicate = "sgt"} : i1
      ttng.arrive_barrier %19, %83, %84
      %85 = ttg.convert_layout %77 : tensor<128x128xf32, #mma1>
      %86 = arith.mulf %85, %76 : tensor<128x128xf32, #mma1>
      %87 = arith.truncf %66 : tensor<128x64xf16, #mma1>
      %88 = ttg.convert_layout %86 : tensor<128x128xf32, #mma>
      %89 = arith.addi %39, %13 : i32
      %90 = arith.cmpi %89, %N_CTX {predicate = "slt"} : i1
      ttng.wait_barrier %17, %50, %52, %90
      %91 = ttg.local_load %17, %50 : tensor<128x64xf16, #blocked2>
      %92 = ttng.warp_group_dot %26, %91, %53, %90 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x64xf32, #mma1>
      %93 = ttng.warp_group_dot %87, %46, %88 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x128xf32, #mma>
      %94 = ttng.warp_group_dot_wait %92 {pendings = 1} : tensor<128x64xf32, #mma1>
      scf.yield %93, %74, %60, %50, %52, %94
    }
    %95 = ttng.warp_group_dot_wait %33 {pendings = 0} : tensor<128x128xf32, #mma>
    scf.yield %95, %34, %35
  } producer {
    %96, %97 = scf.for %9, %N_CTX, %13, %20, %20 : i32, i32 {
    ^bb0(%98: i32, %99: i32, %100: i32):
      %101 = arith.xori %100, %21 : i32
      ttng.wait_barrier %19, %99, %101
      %102 = arith.constant {value = true} : i1
      ttng.async_tma_copy_global_to_local %17, %99, %102, %4, %98, %9
      ttng.async_tma_copy_global_to_local %18, %99, %102, %5, %98, %9
      %103 = arith.constant {value = 3} : i32
      %104 = arith.cmpi %99, %103 {predicate = "eq"} : i1
      %105 = arith.addi %99, %21 : i32
      %106 = arith.select %104, %20, %105 : i32
      %107 = arith.xori %100, %21 : i32
      %108 = arith.select %104, %107, %100 : i32
      scf.yield %106, %108
    }
  }
  gpu.barrier
  ttg.local_dealloc %19
  ttg.local_dealloc %18
  ttg.local_dealloc %17
  %109 = tt.expand_dims %23 {axis = 1} : tensor<128x1xf32, #mma1>
  %110 = tt.broadcast %109 : tensor<128x128xf32, #mma1>
  %111 = ttg.convert_layout %110 : tensor<128x128xf32, #mma>
  %112 = arith.divf %22, %111 : tensor<128x128xf32, #mma>
  %113 = arith.truncf %112 : tensor<128x128xf16, #mma>
  %114 = ttg.convert_layout %113 : tensor<128x128xf16, #blocked1>
  tt.descriptor_store %6, %114, %8, %9
  tt.descriptor_store %3, %114, %8, %9
  tt.return
}
