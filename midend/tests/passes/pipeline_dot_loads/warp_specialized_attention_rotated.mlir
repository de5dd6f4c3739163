// Attention's chain with K and V through TMA, warp-specialized: the consumers' loop is rotated
// by one iteration. The first scores are issued and waited for before the loop; each iteration
// runs the softmax of the carried scores while the previous P V may still run, waits for that
// P V only where the accumulator is read (then releases the previous slot), waits on the K ring's
// barrier of the next slot and issues the next scores (both only when that iteration runs), then
// its own P V, and waits until one group (the P V) is left before the back edge.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>

tt.func public @attention(%q: tensor<64x64xf16, #mma>, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>, %n: i32 {tt.divisibility = 16}, %scale: f32) {
  %0 = arith.constant {value = 64} : i64
  %1 = arith.constant {value = 1} : i64
  %2 = arith.constant {value = 64} : i32
  %3 = tt.make_tensor_descriptor %k_ptr, %n, %2, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %4 = tt.make_tensor_descriptor %v_ptr, %n, %2, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %5 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %6 = arith.constant {value = 0} : i32
  %7 = scf.for %6, %n, %2, %5 {tt.warp_specialize = true} : tensor<64x64xf32, #mma> {
  ^bb0(%8: i32, %9: tensor<64x64xf32, #mma>):
    %10 = tt.descriptor_load %3, %8, %6 : tensor<64x64xf16, #blocked>
    %11 = tt.trans %10 {order = [1, 0]} : tensor<64x64xf16, #blocked1>
    %12 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
    %13 = ttng.warp_group_dot %q, %11, %12 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    %14 = math.exp2 %13 : tensor<64x64xf32, #mma>
    %15 = arith.truncf %14 : tensor<64x64xf16, #mma>
    %16 = tt.splat %scale : tensor<64x64xf32, #mma>
    %17 = arith.mulf %9, %16 : tensor<64x64xf32, #mma>
    %18 = tt.descriptor_load %4, %8, %6 : tensor<64x64xf16, #blocked>
    %19 = ttng.warp_group_dot %15, %18, %17 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %19
  }
  tt.store %o_ptrs, %7
  tt.return
}
// ----- expected
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @attention(%q: tensor<64x64xf16, #mma>, %k_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %v_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>, %n: i32 {tt.divisibility = 16}, %scale: f32) {
  %0 = arith.constant {value = 64} : i64
  %1 = arith.constant {value = 1} : i64
  %2 = arith.constant {value = 64} : i32
  %3 = tt.make_tensor_descriptor %k_ptr, %n, %2, %0, %1 {padding = "zero", swizzle_bytes = 128} : !tt.tensordesc<tensor<64x64xf16>>
  %4 = tt.make_tensor_descriptor %v_ptr, %n, %2, %0, %1 {padding = "zero", swizzle_bytes = 128} : !tt.tensordesc<tensor<64x64xf16>>
  %5 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %6 = arith.constant {value = 0} : i32
  %7 = ttg.local_alloc {slots = 3, shape = [64, 64], elem_bytes = 2, column_major = true, swizzle_bytes = 128, tma = true} : i32
  %8 = ttg.local_alloc {slots = 3, shape = [64, 64], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %9 = ttng.init_barriers {count = 3, arrivals = 4} : i32
  %10 = arith.constant {value = 0} : i32
  %11 = arith.constant {value = 1} : i32
  %12 = ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 240} : tensor<64x64xf32, #mma> {
    %13 = arith.cmpi %6, %n {predicate = "slt"} : i1
    %14 = arith.constant {value = 0} : i32
    ttng.wait_barrier %7, %14, %14, %13
    %15 = ttg.local_load %7, %14 : tensor<64x64xf16, #blocked>
    %16 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
    %17 = ttng.warp_group_dot %q, %15, %16, %13 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
    %18 = ttng.warp_group_dot_wait %17 {pendings = 0} : tensor<64x64xf32, #mma>
    %19, %20, %21, %22 = scf.for %6, %n, %2, %5, %10, %10, %18 {tt.warp_specialize = true} : tensor<64x64xf32, #mma>, i32, i32, tensor<64x64xf32, #mma> {
    ^bb0(%23: i32, %24: tensor<64x64xf32, #mma>, %25: i32, %26: i32, %27: tensor<64x64xf32, #mma>):
      ttng.wait_barrier %7, %25, %26
      ttng.wait_barrier %8, %25, %26
      %28 = ttg.local_load %8, %25 : tensor<64x64xf16, #blocked1>
      %29 = arith.constant {value = 2} : i32
      %30 = arith.cmpi %25, %29 {predicate = "eq"} : i1
      %31 = arith.addi %25, %11 : i32
      %32 = arith.select %30, %10, %31 : i32
      %33 = arith.xori %26, %11 : i32
      %34 = arith.select %30, %33, %26 : i32
      %35 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
      %36 = math.exp2 %27 : tensor<64x64xf32, #mma>
      %37 = arith.truncf %36 : tensor<64x64xf16, #mma>
      %38 = tt.splat %scale : tensor<64x64xf32, #mma>
      %39 = ttng.warp_group_dot_wait %24 {pendings = 0} : tensor<64x64xf32, #mma>
      %40 = arith.constant {value = 3} : i32
      %41 = arith.constant {value = 2} : i32
      %42 = arith.addi %25, %41 : i32
      %43 = arith.cmpi %42, %40 {predicate = "sge"} : i1
      %44 = arith.subi %42, %40 : i32
      %45 = arith.select %43, %44, %42 : i32
      %46 = arith.cmpi %23, %6 {predicate = "sgt"} : i1
      ttng.arrive_barrier %9, %45, %46
      %47 = arith.mulf %39, %38 : tensor<64x64xf32, #mma>
      %48 = arith.addi %23, %2 : i32
      %49 = arith.cmpi %48, %n {predicate = "slt"} : i1
      ttng.wait_barrier %7, %32, %34, %49
      %50 = ttg.local_load %7, %32 : tensor<64x64xf16, #blocked>
      %51 = ttng.warp_group_dot %q, %50, %35, %49 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
      %52 = ttng.warp_group_dot %37, %28, %47 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
      %53 = ttng.warp_group_dot_wait %51 {pendings = 1} : tensor<64x64xf32, #mma>
      scf.yield %52, %32, %34, %53
    }
    %54 = ttng.warp_group_dot_wait %19 {pendings = 0} : tensor<64x64xf32, #mma>
    scf.yield %54
  } producer {
    %55, %56 = scf.for %6, %n, %2, %10, %10 : i32, i32 {
    ^bb0(%57: i32, %58: i32, %59: i32):
      %60 = arith.xori %59, %11 : i32
      ttng.wait_barrier %9, %58, %60
      %61 = arith.constant {value = true} : i1
      ttng.async_tma_copy_global_to_local %7, %58, %61, %3, %57, %6
      ttng.async_tma_copy_global_to_local %8, %58, %61, %4, %57, %6
      %62 = arith.constant {value = 2} : i32
      %63 = arith.cmpi %58, %62 {predicate = "eq"} : i1
      %64 = arith.addi %58, %11 : i32
      %65 = arith.select %63, %10, %64 : i32
      %66 = arith.xori %59, %11 : i32
      %67 = arith.select %63, %66, %59 : i32
      scf.yield %65, %67
    }
  }
  gpu.barrier
  ttg.local_dealloc %9
  ttg.local_dealloc %8
  ttg.local_dealloc %7
  tt.store %o_ptrs, %12
  tt.return
}
