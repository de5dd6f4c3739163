// A descriptor loop marked `warp_specialize` becomes a ttng.warp_specialize: the loop, in the
// default region, waits for each slot's tiles ("full" mbarriers of the TMA rings), keeps one dot
// in flight and, after its wait, hands the previous iteration's slot back (one arrival per warp on
// the "empty" barriers, none in the first iteration); the producer region's loop waits for a
// freed slot (flipped parity: every slot starts free) and issues the copies. No prologue, no
// block-wide barrier in the loop; one after the partition before the rings are released.
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
  %15 = scf.for %12, %K, %13, %14 {tt.warp_specialize = true} : tensor<64x64xf32, #mma> {
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
  %17 = ttng.init_barriers {count = 3, arrivals = 4} : i32
  %18 = arith.constant {value = 0} : i32
  %19 = arith.constant {value = 1} : i32
  %20 = ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 240} : tensor<64x64xf32, #mma> {
    %21, %22, %23 = scf.for %12, %K, %13, %14, %18, %18 {tt.warp_specialize = true} : tensor<64x64xf32, #mma>, i32, i32 {
    ^bb0(%24: i32, %25: tensor<64x64xf32, #mma>, %26: i32, %27: i32):
      ttng.wait_barrier %15, %26, %27
      ttng.wait_barrier %16, %26, %27
      %28 = ttg.local_load %15, %26 : tensor<64x32xf16, #blocked1>
      %29 = ttg.local_load %16, %26 : tensor<32x64xf16, #blocked>
      %30 = arith.constant {value = 2} : i32
      %31 = arith.cmpi %26, %30 {predicate = "eq"} : i1
      %32 = arith.addi %26, %19 : i32
      %33 = arith.select %31, %18, %32 : i32
      %34 = arith.xori %27, %19 : i32
      %35 = arith.select %31, %34, %27 : i32
      %36 = ttng.warp_group_dot %28, %29, %25 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
      %37 = ttng.warp_group_dot_wait %36 {pendings = 1} : tensor<64x64xf32, #mma>
      %38 = arith.constant {value = 3} : i32
      %39 = arith.constant {value = 2} : i32
      %40 = arith.addi %26, %39 : i32
      %41 = arith.cmpi %40, %38 {predicate = "sge"} : i1
      %42 = arith.subi %40, %38 : i32
      %43 = arith.select %41, %42, %40 : i32
      %44 = arith.cmpi %24, %12 {predicate = "sgt"} : i1
      ttng.arrive_barrier %17, %43, %44
      scf.yield %37, %33, %35
    }
    %45 = ttng.warp_group_dot_wait %21 {pendings = 0} : tensor<64x64xf32, #mma>
    scf.yield %45
  } producer {
    %46, %47 = scf.for %12, %K, %13, %18, %18 : i32, i32 {
    ^bb0(%48: i32, %49: i32, %50: i32):
      %51 = arith.xori %50, %19 : i32
      ttng.wait_barrier %17, %49, %51
      %52 = arith.constant {value = true} : i1
      ttng.async_tma_copy_global_to_local %15, %49, %52, %2, %8, %48
      ttng.async_tma_copy_global_to_local %16, %49, %52, %4, %48, %10
      %53 = arith.constant {value = 2} : i32
      %54 = arith.cmpi %49, %53 {predicate = "eq"} : i1
      %55 = arith.addi %49, %19 : i32
      %56 = arith.select %54, %18, %55 : i32
      %57 = arith.xori %50, %19 : i32
      %58 = arith.select %54, %57, %50 : i32
      scf.yield %56, %58
    }
  }
  gpu.barrier
  ttg.local_dealloc %17
  ttg.local_dealloc %16
  ttg.local_dealloc %15
  %59 = arith.truncf %20 : tensor<64x64xf16, #mma>
  %60 = ttg.convert_layout %59 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %60, %8, %10
  tt.return
}
