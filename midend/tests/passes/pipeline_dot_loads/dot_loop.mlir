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
    %82 = arith.constant {value = 2} : i32
    %83 = arith.cmpi %79, %80 {predicate = "eq"} : i1
    %84 = arith.subi %79, %81 : i32
    %85 = arith.select %83, %82, %84 : i32
    %86 = arith.cmpi %79, %82 {predicate = "eq"} : i1
    %87 = arith.addi %79, %81 : i32
    %88 = arith.select %86, %80, %87 : i32
    %89 = arith.addi %75, %6 : i32
    %90 = arith.addi %77, %13 : i64
    %91 = arith.addi %78, %14 : i64
    %92 = arith.addi %89, %6 : i32
    %93 = arith.addi %90, %13 : i64
    %94 = arith.addi %91, %14 : i64
    %95 = arith.cmpi %92, %K {predicate = "slt"} : i1
    %96 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %97 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %98 = tt.expand_dims %97 {axis = 1} : tensor<32x1xi32, #blocked3>
    %99 = tt.splat %K : tensor<32x1xi32, #blocked3>
    %100 = arith.muli %98, %99 : tensor<32x1xi32, #blocked3>
    %101 = tt.addptr %96, %100 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %102 = tt.broadcast %101 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %103 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %104 = tt.expand_dims %103 {axis = 0} : tensor<1x32xi32, #blocked3>
    %105 = tt.broadcast %104 : tensor<32x32xi32, #blocked3>
    %106 = tt.addptr %102, %105 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %107 = tt.splat %93 : tensor<32x32xi64, #blocked3>
    %108 = tt.addptr %106, %107 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %109 = tt.splat %95 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %15, %85, %108, %109
    %110 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %111 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %112 = arith.muli %98, %111 : tensor<32x1xi32, #blocked3>
    %113 = tt.addptr %110, %112 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %114 = tt.broadcast %113 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %115 = tt.addptr %114, %105 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %116 = tt.splat %94 : tensor<32x32xi64, #blocked3>
    %117 = tt.addptr %115, %116 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %118 = tt.splat %95 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %16, %85, %117, %118
    ttg.async_commit_group
    %119 = ttg.local_load %15, %79 : tensor<32x32xf16, #blocked3>
    %120 = ttg.local_load %16, %79 : tensor<32x32xf16, #blocked3>
    %121 = tt.dot %119, %120, %76 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    %122 = arith.addi %77, %13 : i64
    %123 = arith.addi %78, %14 : i64
    scf.yield %121, %122, %123, %88
  }
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %16
  ttg.local_dealloc %15
  %124 = ttg.convert_layout %71 : tensor<32x32xf32, #blocked2>
  %125 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %126 = tt.addptr %125, %8 : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %127 = ttg.convert_layout %126 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %128 = tt.broadcast %127 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  %129 = tt.addptr %128, %5 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  tt.store %129, %124
  tt.return
}
