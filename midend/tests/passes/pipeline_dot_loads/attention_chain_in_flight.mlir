// Attention's chain on warpgroup MMAs: the second dot (P V) stays in flight into the next
// iteration. The first dot (Q K^T) is asynchronous too and waits for both (`pendings = 0`),
// which also yields the carried accumulator for its rescaling; the rings get a fourth slot, as
// the second dot of iteration k - 1 still reads its tile while iteration k copies; the loop's
// result waits for the last dot.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>

tt.func public @attention(%q: tensor<64x64xf16, #mma>, %k_ptrs: tensor<64x32x!tt.ptr<f16>, #blocked1>, %v_ptrs: tensor<32x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>, %n: i32, %scale: f32) {
  %0 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 32} : i32
  %3 = scf.for %1, %n, %2, %0 : tensor<64x64xf32, #mma> {
  ^bb0(%4: i32, %5: tensor<64x64xf32, #mma>):
    %6 = tt.load %k_ptrs : tensor<64x32xf16, #blocked1>
    %7 = arith.constant {value = 0.0} : tensor<64x32xf32, #mma1>
    %8 = ttng.warp_group_dot %q, %6, %7 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x32xf32, #mma1>
    %9 = math.exp2 %8 : tensor<64x32xf32, #mma1>
    %10 = arith.truncf %9 : tensor<64x32xf16, #mma1>
    %11 = tt.splat %scale : tensor<64x64xf32, #mma>
    %12 = arith.mulf %5, %11 : tensor<64x64xf32, #mma>
    %13 = tt.load %v_ptrs : tensor<32x64xf16, #blocked>
    %14 = ttng.warp_group_dot %10, %13, %12 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %14
  }
  tt.store %o_ptrs, %3
  tt.return
}
// ----- expected
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 32, 16]}>

tt.func public @attention(%q: tensor<64x64xf16, #mma>, %k_ptrs: tensor<64x32x!tt.ptr<f16>, #blocked>, %v_ptrs: tensor<32x64x!tt.ptr<f16>, #blocked1>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>, %n: i32, %scale: f32) {
  %0 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 32} : i32
  %3 = ttg.local_alloc {slots = 3, shape = [64, 32], elem_bytes = 2, column_major = true, swizzle_bytes = 128} : i32
  %4 = ttg.local_alloc {slots = 3, shape = [32, 64], elem_bytes = 2, swizzle_bytes = 128} : i32
  %5 = arith.cmpi %1, %n {predicate = "slt"} : i1
  %6 = arith.constant {value = 0} : i32
  %7 = tt.splat %5 : tensor<64x32xi1, #blocked>
  ttg.async_copy_global_to_local %3, %6, %k_ptrs, %7
  %8 = tt.splat %5 : tensor<32x64xi1, #blocked1>
  ttg.async_copy_global_to_local %4, %6, %v_ptrs, %8
  ttg.async_commit_group
  %9 = arith.addi %1, %2 : i32
  %10 = arith.cmpi %9, %n {predicate = "slt"} : i1
  %11 = arith.constant {value = 1} : i32
  %12 = tt.splat %10 : tensor<64x32xi1, #blocked>
  ttg.async_copy_global_to_local %3, %11, %k_ptrs, %12
  %13 = tt.splat %10 : tensor<32x64xi1, #blocked1>
  ttg.async_copy_global_to_local %4, %11, %v_ptrs, %13
  ttg.async_commit_group
  %14 = arith.constant {value = 0} : i32
  %15, %16 = scf.for %1, %n, %2, %0, %14 : tensor<64x64xf32, #mma>, i32 {
  ^bb0(%17: i32, %18: tensor<64x64xf32, #mma>, %19: i32):
    ttg.async_wait {num = 1}
    gpu.barrier
    %20 = arith.constant {value = 0} : i32
    %21 = arith.constant {value = 1} : i32
    %22 = arith.constant {value = 3} : i32
    %23 = arith.constant {value = 2} : i32
    %24 = arith.addi %19, %23 : i32
    %25 = arith.cmpi %24, %22 {predicate = "sge"} : i1
    %26 = arith.subi %24, %22 : i32
    %27 = arith.select %25, %26, %24 : i32
    %28 = arith.constant {value = 2} : i32
    %29 = arith.cmpi %19, %28 {predicate = "eq"} : i1
    %30 = arith.addi %19, %21 : i32
    %31 = arith.select %29, %20, %30 : i32
    %32 = ttg.local_load %3, %19 : tensor<64x32xf16, #blocked>
    %33 = ttg.local_load %4, %19 : tensor<32x64xf16, #blocked1>
    %34 = arith.constant {value = 0.0} : tensor<64x32xf32, #mma1>
    %35 = ttng.warp_group_dot %q, %32, %34 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x32xf32, #mma1>
    %36, %37 = ttng.warp_group_dot_wait %35, %18 {pendings = 0} : tensor<64x32xf32, #mma1>, tensor<64x64xf32, #mma>
    %38 = math.exp2 %36 : tensor<64x32xf32, #mma1>
    %39 = arith.truncf %38 : tensor<64x32xf16, #mma1>
    %40 = tt.splat %scale : tensor<64x64xf32, #mma>
    %41 = arith.mulf %37, %40 : tensor<64x64xf32, #mma>
    %42 = ttng.warp_group_dot %39, %33, %41 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
    gpu.barrier
    %43 = arith.addi %17, %2 : i32
    %44 = arith.addi %43, %2 : i32
    %45 = arith.cmpi %44, %n {predicate = "slt"} : i1
    %46 = tt.splat %45 : tensor<64x32xi1, #blocked>
    ttg.async_copy_global_to_local %3, %27, %k_ptrs, %46
    %47 = tt.splat %45 : tensor<32x64xi1, #blocked1>
    ttg.async_copy_global_to_local %4, %27, %v_ptrs, %47
    ttg.async_commit_group
    scf.yield %42, %31
  }
  %48 = ttng.warp_group_dot_wait %15 {pendings = 0} : tensor<64x64xf32, #mma>
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %4
  ttg.local_dealloc %3
  tt.store %o_ptrs, %48
  tt.return
}
