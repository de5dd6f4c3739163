// Two warpgroup dots that are not a chain (each accumulates its own carried value from its own
// tiles) stay in flight one iteration each (`pendings = 1`), as a GEMM's dot does, not as
// attention's pair.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>

tt.func public @two_gemms(%a: tensor<64x64xf16, #mma>, %b_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %c_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>, %n: i32) {
  %0 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 64} : i32
  %3, %4 = scf.for %1, %n, %2, %0, %0 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma> {
  ^bb0(%5: i32, %6: tensor<64x64xf32, #mma>, %7: tensor<64x64xf32, #mma>):
    %8 = tt.load %b_ptrs : tensor<64x64xf16, #blocked>
    %9 = ttng.warp_group_dot %a, %8, %6 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    %10 = tt.load %c_ptrs : tensor<64x64xf16, #blocked>
    %11 = ttng.warp_group_dot %a, %10, %7 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %9, %11
  }
  %12 = arith.addf %3, %4 : tensor<64x64xf32, #mma>
  tt.store %o_ptrs, %12
  tt.return
}
// ----- expected
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>

tt.func public @two_gemms(%a: tensor<64x64xf16, #mma>, %b_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %c_ptrs: tensor<64x64x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<64x64x!tt.ptr<f32>, #mma>, %n: i32) {
  %0 = arith.constant {value = 0.0} : tensor<64x64xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 64} : i32
  %3 = ttg.local_alloc {slots = 3, shape = [64, 64], elem_bytes = 2, swizzle_bytes = 128} : i32
  %4 = ttg.local_alloc {slots = 3, shape = [64, 64], elem_bytes = 2, swizzle_bytes = 128} : i32
  %5 = arith.cmpi %1, %n {predicate = "slt"} : i1
  %6 = arith.constant {value = 0} : i32
  %7 = tt.splat %5 : tensor<64x64xi1, #blocked>
  ttg.async_copy_global_to_local %3, %6, %b_ptrs, %7
  %8 = tt.splat %5 : tensor<64x64xi1, #blocked>
  ttg.async_copy_global_to_local %4, %6, %c_ptrs, %8
  ttg.async_commit_group
  %9 = arith.addi %1, %2 : i32
  %10 = arith.cmpi %9, %n {predicate = "slt"} : i1
  %11 = arith.constant {value = 1} : i32
  %12 = tt.splat %10 : tensor<64x64xi1, #blocked>
  ttg.async_copy_global_to_local %3, %11, %b_ptrs, %12
  %13 = tt.splat %10 : tensor<64x64xi1, #blocked>
  ttg.async_copy_global_to_local %4, %11, %c_ptrs, %13
  ttg.async_commit_group
  %14 = arith.constant {value = 0} : i32
  %15, %16, %17 = scf.for %1, %n, %2, %0, %0, %14 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, i32 {
  ^bb0(%18: i32, %19: tensor<64x64xf32, #mma>, %20: tensor<64x64xf32, #mma>, %21: i32):
    ttg.async_wait {num = 1}
    gpu.barrier
    %22 = arith.constant {value = 0} : i32
    %23 = arith.constant {value = 1} : i32
    %24 = arith.constant {value = 3} : i32
    %25 = arith.constant {value = 2} : i32
    %26 = arith.addi %21, %25 : i32
    %27 = arith.cmpi %26, %24 {predicate = "sge"} : i1
    %28 = arith.subi %26, %24 : i32
    %29 = arith.select %27, %28, %26 : i32
    %30 = arith.constant {value = 2} : i32
    %31 = arith.cmpi %21, %30 {predicate = "eq"} : i1
    %32 = arith.addi %21, %23 : i32
    %33 = arith.select %31, %22, %32 : i32
    %34 = ttg.local_load %3, %21 : tensor<64x64xf16, #blocked>
    %35 = ttg.local_load %4, %21 : tensor<64x64xf16, #blocked>
    %36 = ttng.warp_group_dot %a, %34, %19 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
    %37 = ttng.warp_group_dot_wait %36 {pendings = 1} : tensor<64x64xf32, #mma>
    %38 = ttng.warp_group_dot %a, %35, %20 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<64x64xf32, #mma>
    %39 = ttng.warp_group_dot_wait %38 {pendings = 1} : tensor<64x64xf32, #mma>
    gpu.barrier
    %40 = arith.addi %18, %2 : i32
    %41 = arith.addi %40, %2 : i32
    %42 = arith.cmpi %41, %n {predicate = "slt"} : i1
    %43 = tt.splat %42 : tensor<64x64xi1, #blocked>
    ttg.async_copy_global_to_local %3, %29, %b_ptrs, %43
    %44 = tt.splat %42 : tensor<64x64xi1, #blocked>
    ttg.async_copy_global_to_local %4, %29, %c_ptrs, %44
    ttg.async_commit_group
    scf.yield %37, %39, %33
  }
  %45 = ttng.warp_group_dot_wait %16 {pendings = 0} : tensor<64x64xf32, #mma>
  %46 = ttng.warp_group_dot_wait %15 {pendings = 0} : tensor<64x64xf32, #mma>
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %4
  ttg.local_dealloc %3
  %47 = arith.addf %46, %45 : tensor<64x64xf32, #mma>
  tt.store %o_ptrs, %47
  tt.return
}
