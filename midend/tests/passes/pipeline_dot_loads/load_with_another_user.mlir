module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @dot_and_sum(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %s_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.constant {value = 1024} : i64
  %1 = arith.constant {value = 32} : i64
  %2 = arith.constant {value = 0} : i64
  %3 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked>
  %4 = ttg.convert_layout %3 : tensor<32x32xf32, #mma>
  %5 = arith.constant {value = 0} : i32
  %6 = arith.constant {value = 32} : i32
  %7 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked1>
  %8 = ttg.convert_layout %7 : tensor<32xi32, #slice>
  %9 = tt.expand_dims %8 {axis = 0} : tensor<1x32xi32, #blocked>
  %10 = tt.broadcast %9 : tensor<32x32xi32, #blocked>
  %11 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %12 = tt.splat %K : tensor<32x1xi32, #blocked2>
  %13 = ttg.convert_layout %7 : tensor<32xi32, #slice1>
  %14 = tt.expand_dims %13 {axis = 1} : tensor<32x1xi32, #blocked2>
  %15 = arith.muli %14, %12 : tensor<32x1xi32, #blocked2>
  %16 = tt.addptr %11, %15 : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %17 = ttg.convert_layout %16 : tensor<32x1x!tt.ptr<f16>, #blocked>
  %18 = tt.broadcast %17 : tensor<32x32x!tt.ptr<f16>, #blocked>
  %19 = tt.addptr %18, %10 : tensor<32x32x!tt.ptr<f16>, #blocked>
  %20, %21, %22, %23 = scf.for %5, %K, %6, %4, %3, %2, %2 : tensor<32x32xf32, #mma>, tensor<32x32xf32, #blocked>, i64, i64 {
  ^bb0(%24: i32, %25: tensor<32x32xf32, #mma>, %26: tensor<32x32xf32, #blocked>, %27: i64, %28: i64):
    %29 = tt.splat %27 : tensor<32x32xi64, #blocked>
    %30 = tt.addptr %19, %29 : tensor<32x32x!tt.ptr<f16>, #blocked>
    %31 = tt.load %30 : tensor<32x32xf16, #blocked>
    %32 = tt.splat %28 : tensor<32x32xi64, #blocked3>
    %33 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %34 = tt.expand_dims %33 {axis = 0} : tensor<1x32xi32, #blocked3>
    %35 = tt.broadcast %34 : tensor<32x32xi32, #blocked3>
    %36 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %37 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %38 = tt.expand_dims %37 {axis = 1} : tensor<32x1xi32, #blocked3>
    %39 = arith.muli %38, %36 : tensor<32x1xi32, #blocked3>
    %40 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %41 = tt.addptr %40, %39 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %42 = tt.broadcast %41 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %43 = tt.addptr %42, %35 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %44 = tt.addptr %43, %32 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %45 = tt.load %44 : tensor<32x32xf16, #blocked3>
    %46 = arith.addi %28, %0 : i64
    %47 = arith.addi %27, %1 : i64
    %48 = arith.extf %31 : tensor<32x32xf32, #blocked>
    %49 = arith.addf %26, %48 : tensor<32x32xf32, #blocked>
    %50 = tt.dot %31, %45, %25 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    scf.yield %50, %49, %47, %46
  }
  %51 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %52 = arith.constant {value = 32} : tensor<32x1xi32, #blocked2>
  %53 = arith.muli %14, %52 : tensor<32x1xi32, #blocked2>
  %54 = tt.addptr %51, %53 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %55 = ttg.convert_layout %54 : tensor<32x1x!tt.ptr<f32>, #blocked>
  %56 = tt.broadcast %55 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %57 = tt.addptr %56, %10 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %58 = ttg.convert_layout %20 : tensor<32x32xf32, #blocked>
  tt.store %57, %58
  %59 = tt.splat %s_ptr : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %60 = tt.addptr %59, %53 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %61 = ttg.convert_layout %60 : tensor<32x1x!tt.ptr<f32>, #blocked>
  %62 = tt.broadcast %61 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %63 = tt.addptr %62, %10 : tensor<32x32x!tt.ptr<f32>, #blocked>
  tt.store %63, %21
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @dot_and_sum(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %s_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.constant {value = 1024} : i64
  %1 = arith.constant {value = 32} : i64
  %2 = arith.constant {value = 0} : i64
  %3 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked>
  %4 = ttg.convert_layout %3 : tensor<32x32xf32, #mma>
  %5 = arith.constant {value = 0} : i32
  %6 = arith.constant {value = 32} : i32
  %7 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked1>
  %8 = ttg.convert_layout %7 : tensor<32xi32, #slice>
  %9 = tt.expand_dims %8 {axis = 0} : tensor<1x32xi32, #blocked>
  %10 = tt.broadcast %9 : tensor<32x32xi32, #blocked>
  %11 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %12 = tt.splat %K : tensor<32x1xi32, #blocked2>
  %13 = ttg.convert_layout %7 : tensor<32xi32, #slice1>
  %14 = tt.expand_dims %13 {axis = 1} : tensor<32x1xi32, #blocked2>
  %15 = arith.muli %14, %12 : tensor<32x1xi32, #blocked2>
  %16 = tt.addptr %11, %15 : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %17 = ttg.convert_layout %16 : tensor<32x1x!tt.ptr<f16>, #blocked>
  %18 = tt.broadcast %17 : tensor<32x32x!tt.ptr<f16>, #blocked>
  %19 = tt.addptr %18, %10 : tensor<32x32x!tt.ptr<f16>, #blocked>
  %20 = ttg.local_alloc {slots = 3, shape = [32, 32], elem_bytes = 2} : i32
  %21 = arith.cmpi %5, %K {predicate = "slt"} : i1
  %22 = arith.constant {value = 0} : i32
  %23 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %24 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %25 = tt.expand_dims %24 {axis = 1} : tensor<32x1xi32, #blocked3>
  %26 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %27 = arith.muli %25, %26 : tensor<32x1xi32, #blocked3>
  %28 = tt.addptr %23, %27 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %29 = tt.broadcast %28 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %30 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %31 = tt.expand_dims %30 {axis = 0} : tensor<1x32xi32, #blocked3>
  %32 = tt.broadcast %31 : tensor<32x32xi32, #blocked3>
  %33 = tt.addptr %29, %32 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %34 = tt.splat %2 : tensor<32x32xi64, #blocked3>
  %35 = tt.addptr %33, %34 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %36 = tt.splat %21 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %20, %22, %35, %36
  ttg.async_commit_group
  %37 = arith.constant {value = 1} : i32
  %38 = arith.muli %6, %37 : i32
  %39 = arith.addi %5, %38 : i32
  %40 = arith.addi %2, %0 : i64
  %41 = arith.cmpi %39, %K {predicate = "slt"} : i1
  %42 = arith.constant {value = 1} : i32
  %43 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %44 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %45 = tt.expand_dims %44 {axis = 1} : tensor<32x1xi32, #blocked3>
  %46 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %47 = arith.muli %45, %46 : tensor<32x1xi32, #blocked3>
  %48 = tt.addptr %43, %47 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %49 = tt.broadcast %48 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %50 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %51 = tt.expand_dims %50 {axis = 0} : tensor<1x32xi32, #blocked3>
  %52 = tt.broadcast %51 : tensor<32x32xi32, #blocked3>
  %53 = tt.addptr %49, %52 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %54 = tt.splat %40 : tensor<32x32xi64, #blocked3>
  %55 = tt.addptr %53, %54 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %56 = tt.splat %41 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %20, %42, %55, %56
  ttg.async_commit_group
  %57 = arith.constant {value = 0} : i32
  %58, %59, %60, %61, %62 = scf.for %5, %K, %6, %4, %3, %2, %2, %57 : tensor<32x32xf32, #mma>, tensor<32x32xf32, #blocked>, i64, i64, i32 {
  ^bb0(%63: i32, %64: tensor<32x32xf32, #mma>, %65: tensor<32x32xf32, #blocked>, %66: i64, %67: i64, %68: i32):
    ttg.async_wait {num = 1}
    gpu.barrier
    %69 = arith.constant {value = 0} : i32
    %70 = arith.constant {value = 1} : i32
    %71 = arith.constant {value = 2} : i32
    %72 = arith.cmpi %68, %69 {predicate = "eq"} : i1
    %73 = arith.subi %68, %70 : i32
    %74 = arith.select %72, %71, %73 : i32
    %75 = arith.cmpi %68, %71 {predicate = "eq"} : i1
    %76 = arith.addi %68, %70 : i32
    %77 = arith.select %75, %69, %76 : i32
    %78 = arith.constant {value = 1} : i32
    %79 = arith.muli %6, %78 : i32
    %80 = arith.addi %63, %79 : i32
    %81 = arith.addi %67, %0 : i64
    %82 = arith.constant {value = 1} : i32
    %83 = arith.muli %6, %82 : i32
    %84 = arith.addi %80, %83 : i32
    %85 = arith.addi %81, %0 : i64
    %86 = arith.cmpi %84, %K {predicate = "slt"} : i1
    %87 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %88 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %89 = tt.expand_dims %88 {axis = 1} : tensor<32x1xi32, #blocked3>
    %90 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %91 = arith.muli %89, %90 : tensor<32x1xi32, #blocked3>
    %92 = tt.addptr %87, %91 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %93 = tt.broadcast %92 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %94 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %95 = tt.expand_dims %94 {axis = 0} : tensor<1x32xi32, #blocked3>
    %96 = tt.broadcast %95 : tensor<32x32xi32, #blocked3>
    %97 = tt.addptr %93, %96 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %98 = tt.splat %85 : tensor<32x32xi64, #blocked3>
    %99 = tt.addptr %97, %98 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %100 = tt.splat %86 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %20, %74, %99, %100
    ttg.async_commit_group
    %101 = ttg.local_load %20, %68 : tensor<32x32xf16, #blocked3>
    %102 = tt.splat %66 : tensor<32x32xi64, #blocked>
    %103 = tt.addptr %19, %102 : tensor<32x32x!tt.ptr<f16>, #blocked>
    %104 = tt.load %103 : tensor<32x32xf16, #blocked>
    %105 = arith.addi %67, %0 : i64
    %106 = arith.addi %66, %1 : i64
    %107 = arith.extf %104 : tensor<32x32xf32, #blocked>
    %108 = arith.addf %65, %107 : tensor<32x32xf32, #blocked>
    %109 = tt.dot %104, %101, %64 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    scf.yield %109, %108, %106, %105, %77
  }
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %20
  %110 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %111 = arith.constant {value = 32} : tensor<32x1xi32, #blocked2>
  %112 = arith.muli %14, %111 : tensor<32x1xi32, #blocked2>
  %113 = tt.addptr %110, %112 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %114 = ttg.convert_layout %113 : tensor<32x1x!tt.ptr<f32>, #blocked>
  %115 = tt.broadcast %114 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %116 = tt.addptr %115, %10 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %117 = ttg.convert_layout %58 : tensor<32x32xf32, #blocked>
  tt.store %116, %117
  %118 = tt.splat %s_ptr : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %119 = tt.addptr %118, %112 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %120 = ttg.convert_layout %119 : tensor<32x1x!tt.ptr<f32>, #blocked>
  %121 = tt.broadcast %120 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %122 = tt.addptr %121, %10 : tensor<32x32x!tt.ptr<f32>, #blocked>
  tt.store %122, %59
  tt.return
}
