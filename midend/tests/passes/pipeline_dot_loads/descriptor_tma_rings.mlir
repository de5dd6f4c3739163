// Descriptor loads feeding a warpgroup dot stream through TMA rings: one mbarrier per slot,
// the copies predicated on the iteration running, a wait on the slot's phase (carried, flipped
// at each wrap) instead of cp.async groups, and the tensor maps take the rings' swizzle.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @descriptor_matmul_kernel(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
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
  %15 = scf.for %12, %K, %13, %14 : tensor<64x64xf32, #mma> {
  ^bb0(%16: i32, %17: tensor<64x64xf32, #mma>):
    %18 = tt.descriptor_load %2, %8, %16 : tensor<64x32xf16, #blocked1>
    %19 = tt.descriptor_load %4, %16, %10 : tensor<32x64xf16, #blocked>
    %20 = ttng.warp_group_dot %18, %19, %17 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    %21 = ttg.convert_layout %20 : tensor<64x64xf32, #blocked>
    scf.yield %20
  }
  %22 = arith.truncf %15 : tensor<64x64xf16, #mma>
  %23 = ttg.convert_layout %22 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %23, %8, %10
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @descriptor_matmul_kernel(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
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
  %17 = arith.cmpi %12, %K {predicate = "slt"} : i1
  %18 = arith.constant {value = 0} : i32
  ttng.async_tma_copy_global_to_local %15, %18, %17, %2, %8, %12
  ttng.async_tma_copy_global_to_local %16, %18, %17, %4, %12, %10
  %19 = arith.addi %12, %13 : i32
  %20 = arith.cmpi %19, %K {predicate = "slt"} : i1
  %21 = arith.constant {value = 1} : i32
  ttng.async_tma_copy_global_to_local %15, %21, %20, %2, %8, %19
  ttng.async_tma_copy_global_to_local %16, %21, %20, %4, %19, %10
  %22 = arith.constant {value = 0} : i32
  %23, %24, %25 = scf.for %12, %K, %13, %14, %22, %22 : tensor<64x64xf32, #mma>, i32, i32 {
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
    %50 = arith.cmpi %49, %K {predicate = "slt"} : i1
    ttng.async_tma_copy_global_to_local %15, %37, %50, %2, %8, %49
    ttng.async_tma_copy_global_to_local %16, %37, %50, %4, %49, %10
    scf.yield %47, %41, %43
  }
  %51 = ttng.warp_group_dot_wait %23 {pendings = 0} : tensor<64x64xf32, #mma>
  gpu.barrier
  ttg.local_dealloc %16
  ttg.local_dealloc %15
  %52 = arith.truncf %51 : tensor<64x64xf16, #mma>
  %53 = ttg.convert_layout %52 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %53, %8, %10
  tt.return
}
