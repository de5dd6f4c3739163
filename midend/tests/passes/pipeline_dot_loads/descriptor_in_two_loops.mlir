// A descriptor loaded in two loops (causal attention's two passes over K and V) gets a TMA ring in
// each: every load of it fills a ring, so its tensor map takes their common swizzle.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @two_loops(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %K : i64
  %1 = arith.constant {value = 1} : i64
  %2 = tt.make_tensor_descriptor %a_ptr, %M, %K, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x32xf16>>
  %3 = arith.extsi %N : i64
  %4 = tt.make_tensor_descriptor %b_ptr, %K, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<32x64xf16>>
  %5 = tt.make_tensor_descriptor %c_ptr, %M, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %6 = tt.get_program_id {axis = 0} : i32
  %7 = arith.constant {value = 64} : i32
  %8 = arith.muli %6, %7 : i32
  %9 = tt.get_program_id {axis = 1} : i32
  %10 = arith.muli %9, %7 : i32
  %11 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %12 = arith.constant {value = 0} : i32
  %13 = arith.constant {value = 32} : i32
  %14 = ttg.convert_layout %11 : tensor<64x64xf32, #mma>
  %15 = scf.for %12, %8, %13, %14 : tensor<64x64xf32, #mma> {
  ^bb0(%16: i32, %17: tensor<64x64xf32, #mma>):
    %18 = tt.descriptor_load %2, %8, %16 : tensor<64x32xf16, #blocked1>
    %19 = tt.descriptor_load %4, %16, %10 : tensor<32x64xf16, #blocked>
    %20 = ttng.warp_group_dot %18, %19, %17 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %20
  }
  %21 = scf.for %8, %K, %13, %15 : tensor<64x64xf32, #mma> {
  ^bb0(%22: i32, %23: tensor<64x64xf32, #mma>):
    %24 = tt.descriptor_load %2, %8, %22 : tensor<64x32xf16, #blocked1>
    %25 = tt.descriptor_load %4, %22, %10 : tensor<32x64xf16, #blocked>
    %26 = ttng.warp_group_dot %24, %25, %23 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %26
  }
  %27 = arith.truncf %21 : tensor<64x64xf16, #mma>
  %28 = ttg.convert_layout %27 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %28, %8, %10
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @two_loops(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %K : i64
  %1 = arith.constant {value = 1} : i64
  %2 = tt.make_tensor_descriptor %a_ptr, %M, %K, %0, %1 {padding = "zero", swizzle_bytes = 64} : !tt.tensordesc<tensor<64x32xf16>>
  %3 = arith.extsi %N : i64
  %4 = tt.make_tensor_descriptor %b_ptr, %K, %N, %3, %1 {padding = "zero", swizzle_bytes = 128} : !tt.tensordesc<tensor<32x64xf16>>
  %5 = tt.make_tensor_descriptor %c_ptr, %M, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %6 = tt.get_program_id {axis = 0} : i32
  %7 = arith.constant {value = 64} : i32
  %8 = arith.muli %6, %7 : i32
  %9 = tt.get_program_id {axis = 1} : i32
  %10 = arith.muli %9, %7 : i32
  %11 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %12 = arith.constant {value = 0} : i32
  %13 = arith.constant {value = 32} : i32
  %14 = ttg.convert_layout %11 : tensor<64x64xf32, #mma>
  %15 = ttg.local_alloc {slots = 3, shape = [64, 32], elem_bytes = 2, swizzle_bytes = 64, tma = true} : i32
  %16 = ttg.local_alloc {slots = 3, shape = [32, 64], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %17 = arith.cmpi %12, %8 {predicate = "slt"} : i1
  %18 = arith.constant {value = 0} : i32
  ttng.async_tma_copy_global_to_local %15, %18, %17, %2, %8, %12
  ttng.async_tma_copy_global_to_local %16, %18, %17, %4, %12, %10
  %19 = arith.addi %12, %13 : i32
  %20 = arith.cmpi %19, %8 {predicate = "slt"} : i1
  %21 = arith.constant {value = 1} : i32
  ttng.async_tma_copy_global_to_local %15, %21, %20, %2, %8, %19
  ttng.async_tma_copy_global_to_local %16, %21, %20, %4, %19, %10
  %22 = arith.constant {value = 0} : i32
  %23, %24, %25 = scf.for %12, %8, %13, %14, %22, %22 : tensor<64x64xf32, #mma>, i32, i32 {
  ^bb0(%26: i32, %27: tensor<64x64xf32, #mma>, %28: i32, %29: i32):
    ttng.wait_barrier %15, %28, %29
    ttng.wait_barrier %16, %28, %29
    gpu.barrier
    %30 = arith.constant {value = 0} : i32
    %31 = arith.constant {value = 1} : i32
    %32 = arith.constant {value = 3} : i32
    %33 = arith.constant {value = 2} : i32
    %34 = arith.addi %28, %33 : i32
    %35 = arith.cmpi %34, %32 {predicate = "sge"} : i1
    %36 = arith.subi %34, %32 : i32
    %37 = arith.select %35, %36, %34 : i32
    %38 = arith.constant {value = 2} : i32
    %39 = arith.cmpi %28, %38 {predicate = "eq"} : i1
    %40 = arith.addi %28, %31 : i32
    %41 = arith.select %39, %30, %40 : i32
    %42 = arith.xori %29, %31 : i32
    %43 = arith.select %39, %42, %29 : i32
    %44 = ttg.local_load %15, %28 : tensor<64x32xf16, #blocked1>
    %45 = ttg.local_load %16, %28 : tensor<32x64xf16, #blocked>
    %46 = ttng.warp_group_dot %44, %45, %27 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
    %47 = ttng.warp_group_dot_wait %46 {pendings = 1} : tensor<64x64xf32, #mma>
    gpu.barrier
    %48 = arith.addi %26, %13 : i32
    %49 = arith.addi %48, %13 : i32
    %50 = arith.cmpi %49, %8 {predicate = "slt"} : i1
    ttng.async_tma_copy_global_to_local %15, %37, %50, %2, %8, %49
    ttng.async_tma_copy_global_to_local %16, %37, %50, %4, %49, %10
    scf.yield %47, %41, %43
  }
  %51 = ttng.warp_group_dot_wait %23 {pendings = 0} : tensor<64x64xf32, #mma>
  gpu.barrier
  ttg.local_dealloc %16
  ttg.local_dealloc %15
  %52 = ttg.local_alloc {slots = 3, shape = [64, 32], elem_bytes = 2, swizzle_bytes = 64, tma = true} : i32
  %53 = ttg.local_alloc {slots = 3, shape = [32, 64], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %54 = arith.cmpi %8, %K {predicate = "slt"} : i1
  %55 = arith.constant {value = 0} : i32
  ttng.async_tma_copy_global_to_local %52, %55, %54, %2, %8, %8
  ttng.async_tma_copy_global_to_local %53, %55, %54, %4, %8, %10
  %56 = arith.addi %8, %13 : i32
  %57 = arith.cmpi %56, %K {predicate = "slt"} : i1
  %58 = arith.constant {value = 1} : i32
  ttng.async_tma_copy_global_to_local %52, %58, %57, %2, %8, %56
  ttng.async_tma_copy_global_to_local %53, %58, %57, %4, %56, %10
  %59 = arith.constant {value = 0} : i32
  %60, %61, %62 = scf.for %8, %K, %13, %51, %59, %59 : tensor<64x64xf32, #mma>, i32, i32 {
  ^bb0(%63: i32, %64: tensor<64x64xf32, #mma>, %65: i32, %66: i32):
    ttng.wait_barrier %52, %65, %66
    ttng.wait_barrier %53, %65, %66
    gpu.barrier
    %67 = arith.constant {value = 0} : i32
    %68 = arith.constant {value = 1} : i32
    %69 = arith.constant {value = 3} : i32
    %70 = arith.constant {value = 2} : i32
    %71 = arith.addi %65, %70 : i32
    %72 = arith.cmpi %71, %69 {predicate = "sge"} : i1
    %73 = arith.subi %71, %69 : i32
    %74 = arith.select %72, %73, %71 : i32
    %75 = arith.constant {value = 2} : i32
    %76 = arith.cmpi %65, %75 {predicate = "eq"} : i1
    %77 = arith.addi %65, %68 : i32
    %78 = arith.select %76, %67, %77 : i32
    %79 = arith.xori %66, %68 : i32
    %80 = arith.select %76, %79, %66 : i32
    %81 = ttg.local_load %52, %65 : tensor<64x32xf16, #blocked1>
    %82 = ttg.local_load %53, %65 : tensor<32x64xf16, #blocked>
    %83 = ttng.warp_group_dot %81, %82, %64 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
    %84 = ttng.warp_group_dot_wait %83 {pendings = 1} : tensor<64x64xf32, #mma>
    gpu.barrier
    %85 = arith.addi %63, %13 : i32
    %86 = arith.addi %85, %13 : i32
    %87 = arith.cmpi %86, %K {predicate = "slt"} : i1
    ttng.async_tma_copy_global_to_local %52, %74, %87, %2, %8, %86
    ttng.async_tma_copy_global_to_local %53, %74, %87, %4, %86, %10
    scf.yield %84, %78, %80
  }
  %88 = ttng.warp_group_dot_wait %60 {pendings = 0} : tensor<64x64xf32, #mma>
  gpu.barrier
  ttg.local_dealloc %53
  ttg.local_dealloc %52
  %89 = arith.truncf %88 : tensor<64x64xf16, #mma>
  %90 = ttg.convert_layout %89 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %90, %8, %10
  tt.return
}
