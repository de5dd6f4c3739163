// Attention's chain in a program of two warpgroups (8 warps along M): the warpgroups hand the
// ring slots over through mbarriers instead of a block-wide barrier per iteration. Each
// thread's copies arrive on the slot's "full" barrier (256 arrivals) once they land, and
// iteration k waits on it with the phase the loop carries; before copying into a slot, each
// thread waits on its "empty" barrier with the parity of the slot's previous fill (none before
// the first), which every warp arrives on (8 arrivals) once the dots of the iteration that read
// it are done: right after the next iteration's first dot wait. (Tiles of 128x128: three slots
// take most of shared memory, so the ring keeps its copies ahead of the dots.)
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#mma1 = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>

tt.func public @attention(%q: tensor<128x128xf16, #mma>, %k_ptrs: tensor<128x128x!tt.ptr<f16>, #blocked1>, %v_ptrs: tensor<128x128x!tt.ptr<f16>, #blocked>, %o_ptrs: tensor<128x128x!tt.ptr<f32>, #mma>, %n: i32, %scale: f32) {
  %0 = arith.constant {value = 0.0} : tensor<128x128xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 128} : i32
  %3 = scf.for %1, %n, %2, %0 : tensor<128x128xf32, #mma> {
  ^bb0(%4: i32, %5: tensor<128x128xf32, #mma>):
    %6 = tt.load %k_ptrs : tensor<128x128xf16, #blocked1>
    %7 = arith.constant {value = 0.0} : tensor<128x128xf32, #mma1>
    %8 = ttng.warp_group_dot %q, %6, %7 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32, #mma1>
    %9 = math.exp2 %8 : tensor<128x128xf32, #mma1>
    %10 = arith.truncf %9 : tensor<128x128xf16, #mma1>
    %11 = tt.splat %scale : tensor<128x128xf32, #mma>
    %12 = arith.mulf %5, %11 : tensor<128x128xf32, #mma>
    %13 = tt.load %v_ptrs : tensor<128x128xf16, #blocked>
    %14 = ttng.warp_group_dot %10, %13, %12 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<128x128xf32, #mma>
    scf.yield %14
  }
  tt.store %o_ptrs, %3
  tt.return
}
// ----- expected
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [8, 1], instrShape = [16, 128, 16]}>
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 8], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]}>

tt.func public @attention(%q: tensor<128x128xf16, #mma>, %k_ptrs: tensor<128x128x!tt.ptr<f16>, #blocked>, %v_ptrs: tensor<128x128x!tt.ptr<f16>, #blocked1>, %o_ptrs: tensor<128x128x!tt.ptr<f32>, #mma>, %n: i32, %scale: f32) {
  %0 = arith.constant {value = 0.0} : tensor<128x128xf32, #mma>
  %1 = arith.constant {value = 0} : i32
  %2 = arith.constant {value = 128} : i32
  %3 = ttg.local_alloc {slots = 3, shape = [128, 128], elem_bytes = 2, column_major = true, swizzle_bytes = 128} : i32
  %4 = ttg.local_alloc {slots = 3, shape = [128, 128], elem_bytes = 2, swizzle_bytes = 128} : i32
  %5 = ttng.init_barriers {count = 3, arrivals = 256} : i32
  %6 = ttng.init_barriers {count = 3, arrivals = 8} : i32
  %7 = arith.cmpi %1, %n {predicate = "slt"} : i1
  %8 = arith.constant {value = 0} : i32
  %9 = tt.splat %7 : tensor<128x128xi1, #blocked>
  ttg.async_copy_global_to_local %3, %8, %k_ptrs, %9
  %10 = tt.splat %7 : tensor<128x128xi1, #blocked1>
  ttg.async_copy_global_to_local %4, %8, %v_ptrs, %10
  ttng.async_copy_arrive %5, %8, %7
  %11 = arith.constant {value = 0} : i32
  %12, %13, %14 = scf.for %1, %n, %2, %0, %11, %11 : tensor<128x128xf32, #mma>, i32, i32 {
  ^bb0(%15: i32, %16: tensor<128x128xf32, #mma>, %17: i32, %18: i32):
    ttng.wait_barrier %5, %17, %18
    %19 = arith.constant {value = 0} : i32
    %20 = arith.constant {value = 1} : i32
    %21 = arith.constant {value = 3} : i32
    %22 = arith.constant {value = 1} : i32
    %23 = arith.addi %17, %22 : i32
    %24 = arith.cmpi %23, %21 {predicate = "sge"} : i1
    %25 = arith.subi %23, %21 : i32
    %26 = arith.select %24, %25, %23 : i32
    %27 = arith.constant {value = 2} : i32
    %28 = arith.cmpi %17, %27 {predicate = "eq"} : i1
    %29 = arith.addi %17, %20 : i32
    %30 = arith.select %28, %19, %29 : i32
    %31 = arith.xori %18, %20 : i32
    %32 = arith.select %28, %31, %18 : i32
    %33 = arith.xori %18, %20 : i32
    %34 = arith.select %24, %18, %33 : i32
    ttng.wait_barrier %6, %26, %34
    %35 = arith.addi %15, %2 : i32
    %36 = arith.cmpi %35, %n {predicate = "slt"} : i1
    %37 = tt.splat %36 : tensor<128x128xi1, #blocked>
    ttg.async_copy_global_to_local %3, %26, %k_ptrs, %37
    %38 = tt.splat %36 : tensor<128x128xi1, #blocked1>
    ttg.async_copy_global_to_local %4, %26, %v_ptrs, %38
    ttng.async_copy_arrive %5, %26, %36
    %39 = ttg.local_load %3, %17 : tensor<128x128xf16, #blocked>
    %40 = ttg.local_load %4, %17 : tensor<128x128xf16, #blocked1>
    %41 = arith.constant {value = 0.0} : tensor<128x128xf32, #mma>
    %42 = ttng.warp_group_dot %q, %39, %41 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x128xf32, #mma>
    %43, %44 = ttng.warp_group_dot_wait %42, %16 {pendings = 0} : tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>
    %45 = arith.constant {value = 3} : i32
    %46 = arith.constant {value = 2} : i32
    %47 = arith.addi %17, %46 : i32
    %48 = arith.cmpi %47, %45 {predicate = "sge"} : i1
    %49 = arith.subi %47, %45 : i32
    %50 = arith.select %48, %49, %47 : i32
    %51 = arith.cmpi %15, %1 {predicate = "sgt"} : i1
    ttng.arrive_barrier %6, %50, %51
    %52 = math.exp2 %43 : tensor<128x128xf32, #mma>
    %53 = arith.truncf %52 : tensor<128x128xf16, #mma>
    %54 = tt.splat %scale : tensor<128x128xf32, #mma>
    %55 = arith.mulf %44, %54 : tensor<128x128xf32, #mma>
    %56 = ttng.warp_group_dot %53, %40, %55 {input_precision = "tf32", max_num_imprecise_acc = 0, is_async = true} : tensor<128x128xf32, #mma>
    scf.yield %56, %30, %32
  }
  %57 = ttng.warp_group_dot_wait %12 {pendings = 0} : tensor<128x128xf32, #mma>
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %6
  ttg.local_dealloc %5
  ttg.local_dealloc %4
  ttg.local_dealloc %3
  tt.store %o_ptrs, %57
  tt.return
}
