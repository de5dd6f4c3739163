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
  %6 = arith.constant {value = 64} : i32
  %7 = arith.constant {value = 0} : i32
  %8 = arith.constant {value = 32} : i32
  %9 = ttg.local_alloc {slots = 3, shape = [64, 32], elem_bytes = 2, swizzle_bytes = 64, tma = true} : i32
  %10 = ttg.local_alloc {slots = 3, shape = [32, 64], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %11 = ttng.init_barriers {count = 3, arrivals = 4} : i32
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
  ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 240} {
    %23, %24 = scf.for %21, %20, %22, %14, %15 {persistent = true} : i32, i32 {
    ^bb0(%25: i32, %26: i32, %27: i32):
      %28 = arith.remui %25, %16 : i32
      %29 = arith.divui %25, %16 : i32
      %30 = arith.remui %29, %17 : i32
      %31 = arith.muli %28, %6 : i32
      %32 = arith.muli %30, %6 : i32
      %33 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
      %34 = ttg.convert_layout %33 : tensor<64x64xf32, #mma>
      %35, %36, %37 = scf.for %7, %K, %8, %34, %26, %27 {tt.warp_specialize = true} : tensor<64x64xf32, #mma>, i32, i32 {
      ^bb0(%38: i32, %39: tensor<64x64xf32, #mma>, %40: i32, %41: i32):
        ttng.wait_barrier %9, %40, %41
        ttng.wait_barrier %10, %40, %41
        %42 = ttg.local_load %9, %40 : tensor<64x32xf16, #blocked1>
        %43 = ttg.local_load %10, %40 : tensor<32x64xf16, #blocked>
        %44 = arith.constant {value = 2} : i32
        %45 = arith.cmpi %40, %44 {predicate = "eq"} : i1
        %46 = arith.addi %40, %13 : i32
        %47 = arith.select %45, %12, %46 : i32
        %48 = arith.xori %41, %13 : i32
        %49 = arith.select %45, %48, %41 : i32
        %50 = ttng.warp_group_dot %42, %43, %39 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
        %51 = ttng.warp_group_dot_wait %50 {pendings = 1} : tensor<64x64xf32, #mma>
        %52 = arith.constant {value = 3} : i32
        %53 = arith.constant {value = 2} : i32
        %54 = arith.addi %40, %53 : i32
        %55 = arith.cmpi %54, %52 {predicate = "sge"} : i1
        %56 = arith.subi %54, %52 : i32
        %57 = arith.select %55, %56, %54 : i32
        %58 = arith.cmpi %38, %7 {predicate = "sgt"} : i1
        ttng.arrive_barrier %11, %57, %58
        scf.yield %51, %47, %49
      }
      %59 = ttng.warp_group_dot_wait %35 {pendings = 0} : tensor<64x64xf32, #mma>
      %60 = arith.cmpi %7, %K {predicate = "slt"} : i1
      %61 = arith.constant {value = 3} : i32
      %62 = arith.constant {value = 2} : i32
      %63 = arith.addi %36, %62 : i32
      %64 = arith.cmpi %63, %61 {predicate = "sge"} : i1
      %65 = arith.subi %63, %61 : i32
      %66 = arith.select %64, %65, %63 : i32
      ttng.arrive_barrier %11, %66, %60
      %67 = arith.truncf %59 : tensor<64x64xf16, #mma>
      %68 = ttg.convert_layout %67 : tensor<64x64xf16, #blocked>
      tt.descriptor_store %5, %68, %31, %32
      scf.yield %36, %37
    }
    scf.yield
  } producer {
    %69, %70 = scf.for %21, %20, %22, %14, %15 {persistent = true} : i32, i32 {
    ^bb0(%71: i32, %72: i32, %73: i32):
      %74 = arith.remui %71, %16 : i32
      %75 = arith.divui %71, %16 : i32
      %76 = arith.remui %75, %17 : i32
      %77 = arith.muli %74, %6 : i32
      %78 = arith.muli %76, %6 : i32
      %79, %80 = scf.for %7, %K, %8, %72, %73 : i32, i32 {
      ^bb0(%81: i32, %82: i32, %83: i32):
        %84 = arith.xori %83, %13 : i32
        ttng.wait_barrier %11, %82, %84
        %85 = arith.constant {value = true} : i1
        ttng.async_tma_copy_global_to_local %9, %82, %85, %2, %77, %81
        ttng.async_tma_copy_global_to_local %10, %82, %85, %4, %81, %78
        %86 = arith.constant {value = 2} : i32
        %87 = arith.cmpi %82, %86 {predicate = "eq"} : i1
        %88 = arith.addi %82, %13 : i32
        %89 = arith.select %87, %12, %88 : i32
        %90 = arith.xori %83, %13 : i32
        %91 = arith.select %87, %90, %83 : i32
        scf.yield %89, %91
      }
      scf.yield %79, %80
    }
  }
  gpu.barrier
  ttg.local_dealloc %11
  ttg.local_dealloc %10
  ttg.local_dealloc %9
  tt.return
}
