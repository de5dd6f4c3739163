module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @dot_loop(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked>
  %1 = ttg.convert_layout %0 : tensor<32xi32, #slice>
  %2 = tt.expand_dims %1 {axis = 1} : tensor<32x1xi32, #blocked1>
  %3 = ttg.convert_layout %0 : tensor<32xi32, #slice1>
  %4 = tt.expand_dims %3 {axis = 0} : tensor<1x32xi32, #blocked2>
  %5 = tt.broadcast %4 : tensor<32x32xi32, #blocked2>
  %6 = arith.constant {value = 32} : i32
  %7 = arith.constant {value = 32} : tensor<32x1xi32, #blocked1>
  %8 = arith.muli %2, %7 : tensor<32x1xi32, #blocked1>
  %9 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked2>
  %10 = arith.constant {value = 0} : i32
  %11 = ttg.convert_layout %9 : tensor<32x32xf32, #mma>
  %12 = arith.constant {value = 0} : i64
  %13 = arith.constant {value = 32} : i64
  %14 = arith.constant {value = 1024} : i64
  %15, %16, %17 = scf.for %10, %K, %6, %11, %12, %12 : tensor<32x32xf32, #mma>, i64, i64 {
  ^bb0(%18: i32, %19: tensor<32x32xf32, #mma>, %20: i64, %21: i64):
    %22 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %23 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %24 = tt.expand_dims %23 {axis = 1} : tensor<32x1xi32, #blocked3>
    %25 = tt.splat %K : tensor<32x1xi32, #blocked3>
    %26 = arith.muli %24, %25 : tensor<32x1xi32, #blocked3>
    %27 = tt.addptr %22, %26 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %28 = tt.broadcast %27 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %29 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %30 = tt.expand_dims %29 {axis = 0} : tensor<1x32xi32, #blocked3>
    %31 = tt.broadcast %30 : tensor<32x32xi32, #blocked3>
    %32 = tt.addptr %28, %31 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %33 = tt.splat %20 : tensor<32x32xi64, #blocked3>
    %34 = tt.addptr %32, %33 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %35 = tt.load %34 : tensor<32x32xf16, #blocked3>
    %36 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %37 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %38 = arith.muli %24, %37 : tensor<32x1xi32, #blocked3>
    %39 = tt.addptr %36, %38 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %40 = tt.broadcast %39 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %41 = tt.addptr %40, %31 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %42 = tt.splat %21 : tensor<32x32xi64, #blocked3>
    %43 = tt.addptr %41, %42 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %44 = tt.load %43 : tensor<32x32xf16, #blocked3>
    %45 = tt.dot %35, %44, %19 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    %46 = arith.addi %20, %13 : i64
    %47 = arith.addi %21, %14 : i64
    scf.yield %45, %46, %47
  }
  %48 = ttg.convert_layout %15 : tensor<32x32xf32, #blocked2>
  %49 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %50 = tt.addptr %49, %8 : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %51 = ttg.convert_layout %50 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %52 = tt.broadcast %51 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  %53 = tt.addptr %52, %5 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  tt.store %53, %48
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @dot_loop(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked>
  %1 = ttg.convert_layout %0 : tensor<32xi32, #slice>
  %2 = tt.expand_dims %1 {axis = 1} : tensor<32x1xi32, #blocked1>
  %3 = ttg.convert_layout %0 : tensor<32xi32, #slice1>
  %4 = tt.expand_dims %3 {axis = 0} : tensor<1x32xi32, #blocked2>
  %5 = tt.broadcast %4 : tensor<32x32xi32, #blocked2>
  %6 = arith.constant {value = 32} : i32
  %7 = arith.constant {value = 32} : tensor<32x1xi32, #blocked1>
  %8 = arith.muli %2, %7 : tensor<32x1xi32, #blocked1>
  %9 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked2>
  %10 = arith.constant {value = 0} : i32
  %11 = ttg.convert_layout %9 : tensor<32x32xf32, #mma>
  %12 = arith.constant {value = 0} : i64
  %13 = arith.constant {value = 32} : i64
  %14 = arith.constant {value = 1024} : i64
  %15 = ttg.local_alloc {slots = 3, shape = [32, 32], elem_bytes = 2} : i32
  %16 = ttg.local_alloc {slots = 3, shape = [32, 32], elem_bytes = 2} : i32
  %17 = arith.cmpi %10, %K {predicate = "slt"} : i1
  %18 = arith.constant {value = 0} : i32
  %19 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %20 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %21 = tt.expand_dims %20 {axis = 1} : tensor<32x1xi32, #blocked3>
  %22 = tt.splat %K : tensor<32x1xi32, #blocked3>
  %23 = arith.muli %21, %22 : tensor<32x1xi32, #blocked3>
  %24 = tt.addptr %19, %23 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %25 = tt.broadcast %24 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %26 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %27 = tt.expand_dims %26 {axis = 0} : tensor<1x32xi32, #blocked3>
  %28 = tt.broadcast %27 : tensor<32x32xi32, #blocked3>
  %29 = tt.addptr %25, %28 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %30 = tt.splat %12 : tensor<32x32xi64, #blocked3>
  %31 = tt.addptr %29, %30 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %32 = tt.splat %17 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %15, %18, %31, %32
  %33 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %34 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %35 = arith.muli %21, %34 : tensor<32x1xi32, #blocked3>
  %36 = tt.addptr %33, %35 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %37 = tt.broadcast %36 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %38 = tt.addptr %37, %28 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %39 = tt.splat %12 : tensor<32x32xi64, #blocked3>
  %40 = tt.addptr %38, %39 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %41 = tt.splat %17 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %16, %18, %40, %41
  ttg.async_commit_group
  %42 = arith.addi %10, %6 : i32
  %43 = arith.addi %12, %13 : i64
  %44 = arith.addi %12, %14 : i64
  %45 = arith.cmpi %42, %K {predicate = "slt"} : i1
  %46 = arith.constant {value = 1} : i32
  %47 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %48 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %49 = tt.expand_dims %48 {axis = 1} : tensor<32x1xi32, #blocked3>
  %50 = tt.splat %K : tensor<32x1xi32, #blocked3>
  %51 = arith.muli %49, %50 : tensor<32x1xi32, #blocked3>
  %52 = tt.addptr %47, %51 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %53 = tt.broadcast %52 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %54 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %55 = tt.expand_dims %54 {axis = 0} : tensor<1x32xi32, #blocked3>
  %56 = tt.broadcast %55 : tensor<32x32xi32, #blocked3>
  %57 = tt.addptr %53, %56 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %58 = tt.splat %43 : tensor<32x32xi64, #blocked3>
  %59 = tt.addptr %57, %58 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %60 = tt.splat %45 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %15, %46, %59, %60
  %61 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %62 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %63 = arith.muli %49, %62 : tensor<32x1xi32, #blocked3>
  %64 = tt.addptr %61, %63 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %65 = tt.broadcast %64 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %66 = tt.addptr %65, %56 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %67 = tt.splat %44 : tensor<32x32xi64, #blocked3>
  %68 = tt.addptr %66, %67 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %69 = tt.splat %45 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %16, %46, %68, %69
  ttg.async_commit_group
  %70 = arith.constant {value = 0} : i32
  %71, %72, %73, %74 = scf.for %10, %K, %6, %11, %12, %12, %70 : tensor<32x32xf32, #mma>, i64, i64, i32 {
  ^bb0(%75: i32, %76: tensor<32x32xf32, #mma>, %77: i64, %78: i64, %79: i32):
    ttg.async_wait {num = 1}
    gpu.barrier
    %80 = arith.constant {value = 0} : i32
    %81 = arith.constant {value = 1} : i32
    %82 = arith.constant {value = 3} : i32
    %83 = arith.constant {value = 2} : i32
    %84 = arith.addi %79, %83 : i32
    %85 = arith.cmpi %84, %82 {predicate = "sge"} : i1
    %86 = arith.subi %84, %82 : i32
    %87 = arith.select %85, %86, %84 : i32
    %88 = arith.constant {value = 2} : i32
    %89 = arith.cmpi %79, %88 {predicate = "eq"} : i1
    %90 = arith.addi %79, %81 : i32
    %91 = arith.select %89, %80, %90 : i32
    %92 = arith.addi %75, %6 : i32
    %93 = arith.addi %77, %13 : i64
    %94 = arith.addi %78, %14 : i64
    %95 = arith.addi %92, %6 : i32
    %96 = arith.addi %93, %13 : i64
    %97 = arith.addi %94, %14 : i64
    %98 = arith.cmpi %95, %K {predicate = "slt"} : i1
    %99 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %100 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %101 = tt.expand_dims %100 {axis = 1} : tensor<32x1xi32, #blocked3>
    %102 = tt.splat %K : tensor<32x1xi32, #blocked3>
    %103 = arith.muli %101, %102 : tensor<32x1xi32, #blocked3>
    %104 = tt.addptr %99, %103 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %105 = tt.broadcast %104 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %106 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %107 = tt.expand_dims %106 {axis = 0} : tensor<1x32xi32, #blocked3>
    %108 = tt.broadcast %107 : tensor<32x32xi32, #blocked3>
    %109 = tt.addptr %105, %108 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %110 = tt.splat %96 : tensor<32x32xi64, #blocked3>
    %111 = tt.addptr %109, %110 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %112 = tt.splat %98 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %15, %87, %111, %112
    %113 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %114 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %115 = arith.muli %101, %114 : tensor<32x1xi32, #blocked3>
    %116 = tt.addptr %113, %115 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %117 = tt.broadcast %116 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %118 = tt.addptr %117, %108 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %119 = tt.splat %97 : tensor<32x32xi64, #blocked3>
    %120 = tt.addptr %118, %119 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %121 = tt.splat %98 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %16, %87, %120, %121
    ttg.async_commit_group
    %122 = ttg.local_load %15, %79 : tensor<32x32xf16, #blocked3>
    %123 = ttg.local_load %16, %79 : tensor<32x32xf16, #blocked3>
    %124 = tt.dot %122, %123, %76 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    %125 = arith.addi %77, %13 : i64
    %126 = arith.addi %78, %14 : i64
    scf.yield %124, %125, %126, %91
  }
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %16
  ttg.local_dealloc %15
  %127 = ttg.convert_layout %71 : tensor<32x32xf32, #blocked2>
  %128 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %129 = tt.addptr %128, %8 : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %130 = ttg.convert_layout %129 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %131 = tt.broadcast %130 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  %132 = tt.addptr %131, %5 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  tt.store %132, %127
  tt.return
}
