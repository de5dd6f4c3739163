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
  %5 = arith.constant {value = 0} : i32
  %6 = ttg.local_alloc {slots = 3, shape = [64, 64], elem_bytes = 2, column_major = true, swizzle_bytes = 128, tma = true} : i32
  %7 = ttg.local_alloc {slots = 3, shape = [64, 64], elem_bytes = 2, swizzle_bytes = 128, tma = true} : i32
  %8 = ttng.init_barriers {count = 3, arrivals = 4} : i32
  %9 = arith.constant {value = 0} : i32
  %10 = arith.constant {value = 1} : i32
  %11 = arith.constant {value = 0} : i32
  %12 = arith.constant {value = 0} : i32
  %13 = ttng.program_grid {axis = 0} : i32
  %14 = ttng.program_grid {axis = 1} : i32
  %15 = ttng.program_grid {axis = 2} : i32
  %16 = arith.muli %13, %14 : i32
  %17 = arith.muli %16, %15 : i32
  %18 = tt.get_program_id {axis = 0} : i32
  %19 = tt.get_num_programs {axis = 0} : i32
  ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 240} {
    %20, %21 = scf.for %18, %17, %19, %11, %12 {persistent = true} : i32, i32 {
    ^bb0(%22: i32, %23: i32, %24: i32):
      %25 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
      %26 = arith.cmpi %5, %n {predicate = "slt"} : i1
      ttng.wait_barrier %6, %23, %24, %26
      %27 = ttg.local_load %6, %23 : tensor<64x64xf16, #blocked>
      %28 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
      %29 = ttng.warp_group_dot %q, %27, %28, %26 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
      %30 = ttng.warp_group_dot_wait %29 {pendings = 0} : tensor<64x64xf32, #mma>
      %31, %32, %33, %34 = scf.for %5, %n, %2, %25, %23, %24, %30 {tt.warp_specialize = true} : tensor<64x64xf32, #mma>, i32, i32, tensor<64x64xf32, #mma> {
      ^bb0(%35: i32, %36: tensor<64x64xf32, #mma>, %37: i32, %38: i32, %39: tensor<64x64xf32, #mma>):
        ttng.wait_barrier %6, %37, %38
        ttng.wait_barrier %7, %37, %38
        %40 = ttg.local_load %7, %37 : tensor<64x64xf16, #blocked1>
        %41 = arith.constant {value = 2} : i32
        %42 = arith.cmpi %37, %41 {predicate = "eq"} : i1
        %43 = arith.addi %37, %10 : i32
        %44 = arith.select %42, %9, %43 : i32
        %45 = arith.xori %38, %10 : i32
        %46 = arith.select %42, %45, %38 : i32
        %47 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
        %48 = math.exp2 %39 : tensor<64x64xf32, #mma>
        %49 = arith.truncf %48 : tensor<64x64xf16, #mma>
        %50 = tt.splat %scale : tensor<64x64xf32, #mma>
        %51 = ttng.warp_group_dot_wait %36 {pendings = 0} : tensor<64x64xf32, #mma>
        %52 = arith.constant {value = 3} : i32
        %53 = arith.constant {value = 2} : i32
        %54 = arith.addi %37, %53 : i32
        %55 = arith.cmpi %54, %52 {predicate = "sge"} : i1
        %56 = arith.subi %54, %52 : i32
        %57 = arith.select %55, %56, %54 : i32
        %58 = arith.cmpi %35, %5 {predicate = "sgt"} : i1
        ttng.arrive_barrier %8, %57, %58
        %59 = arith.mulf %51, %50 : tensor<64x64xf32, #mma>
        %60 = arith.addi %35, %2 : i32
        %61 = arith.cmpi %60, %n {predicate = "slt"} : i1
        ttng.wait_barrier %6, %44, %46, %61
        %62 = ttg.local_load %6, %44 : tensor<64x64xf16, #blocked>
        %63 = ttng.warp_group_dot %q, %62, %47, %61 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
        %64 = ttng.warp_group_dot %49, %40, %59 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
        %65 = ttng.warp_group_dot_wait %63 {pendings = 1} : tensor<64x64xf32, #mma>
        scf.yield %64, %44, %46, %65
      }
      %66 = ttng.warp_group_dot_wait %31 {pendings = 0} : tensor<64x64xf32, #mma>
      %67 = arith.cmpi %5, %n {predicate = "slt"} : i1
      %68 = arith.constant {value = 3} : i32
      %69 = arith.constant {value = 2} : i32
      %70 = arith.addi %32, %69 : i32
      %71 = arith.cmpi %70, %68 {predicate = "sge"} : i1
      %72 = arith.subi %70, %68 : i32
      %73 = arith.select %71, %72, %70 : i32
      ttng.arrive_barrier %8, %73, %67
      tt.store %o_ptrs, %66
      scf.yield %32, %33
    }
    scf.yield
  } producer {
    %74, %75 = scf.for %18, %17, %19, %11, %12 {persistent = true} : i32, i32 {
    ^bb0(%76: i32, %77: i32, %78: i32):
      %79, %80 = scf.for %5, %n, %2, %77, %78 : i32, i32 {
      ^bb0(%81: i32, %82: i32, %83: i32):
        %84 = arith.xori %83, %10 : i32
        ttng.wait_barrier %8, %82, %84
        %85 = arith.constant {value = true} : i1
        ttng.async_tma_copy_global_to_local %6, %82, %85, %3, %81, %5
        ttng.async_tma_copy_global_to_local %7, %82, %85, %4, %81, %5
        %86 = arith.constant {value = 2} : i32
        %87 = arith.cmpi %82, %86 {predicate = "eq"} : i1
        %88 = arith.addi %82, %10 : i32
        %89 = arith.select %87, %9, %88 : i32
        %90 = arith.xori %83, %10 : i32
        %91 = arith.select %87, %90, %83 : i32
        scf.yield %89, %91
      }
      scf.yield %79, %80
    }
  }
  gpu.barrier
  ttg.local_dealloc %8
  ttg.local_dealloc %7
  ttg.local_dealloc %6
  tt.return
}
