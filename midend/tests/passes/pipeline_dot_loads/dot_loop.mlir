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
  %42 = arith.constant {value = 1} : i32
  %43 = arith.muli %6, %42 : i32
  %44 = arith.addi %10, %43 : i32
  %45 = arith.addi %12, %13 : i64
  %46 = arith.addi %12, %14 : i64
  %47 = arith.cmpi %44, %K {predicate = "slt"} : i1
  %48 = arith.constant {value = 1} : i32
  %49 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %50 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %51 = tt.expand_dims %50 {axis = 1} : tensor<32x1xi32, #blocked3>
  %52 = tt.splat %K : tensor<32x1xi32, #blocked3>
  %53 = arith.muli %51, %52 : tensor<32x1xi32, #blocked3>
  %54 = tt.addptr %49, %53 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %55 = tt.broadcast %54 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %56 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %57 = tt.expand_dims %56 {axis = 0} : tensor<1x32xi32, #blocked3>
  %58 = tt.broadcast %57 : tensor<32x32xi32, #blocked3>
  %59 = tt.addptr %55, %58 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %60 = tt.splat %45 : tensor<32x32xi64, #blocked3>
  %61 = tt.addptr %59, %60 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %62 = tt.splat %47 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %15, %48, %61, %62
  %63 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %64 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %65 = arith.muli %51, %64 : tensor<32x1xi32, #blocked3>
  %66 = tt.addptr %63, %65 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %67 = tt.broadcast %66 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %68 = tt.addptr %67, %58 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %69 = tt.splat %46 : tensor<32x32xi64, #blocked3>
  %70 = tt.addptr %68, %69 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %71 = tt.splat %47 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %16, %48, %70, %71
  ttg.async_commit_group
  %72 = arith.constant {value = 0} : i32
  %73, %74, %75, %76 = scf.for %10, %K, %6, %11, %12, %12, %72 : tensor<32x32xf32, #mma>, i64, i64, i32 {
  ^bb0(%77: i32, %78: tensor<32x32xf32, #mma>, %79: i64, %80: i64, %81: i32):
    ttg.async_wait {num = 1}
    gpu.barrier
    %82 = arith.constant {value = 0} : i32
    %83 = arith.constant {value = 1} : i32
    %84 = arith.constant {value = 2} : i32
    %85 = arith.cmpi %81, %82 {predicate = "eq"} : i1
    %86 = arith.subi %81, %83 : i32
    %87 = arith.select %85, %84, %86 : i32
    %88 = arith.cmpi %81, %84 {predicate = "eq"} : i1
    %89 = arith.addi %81, %83 : i32
    %90 = arith.select %88, %82, %89 : i32
    %91 = arith.constant {value = 1} : i32
    %92 = arith.muli %6, %91 : i32
    %93 = arith.addi %77, %92 : i32
    %94 = arith.addi %79, %13 : i64
    %95 = arith.addi %80, %14 : i64
    %96 = arith.constant {value = 1} : i32
    %97 = arith.muli %6, %96 : i32
    %98 = arith.addi %93, %97 : i32
    %99 = arith.addi %94, %13 : i64
    %100 = arith.addi %95, %14 : i64
    %101 = arith.cmpi %98, %K {predicate = "slt"} : i1
    %102 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %103 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %104 = tt.expand_dims %103 {axis = 1} : tensor<32x1xi32, #blocked3>
    %105 = tt.splat %K : tensor<32x1xi32, #blocked3>
    %106 = arith.muli %104, %105 : tensor<32x1xi32, #blocked3>
    %107 = tt.addptr %102, %106 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %108 = tt.broadcast %107 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %109 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %110 = tt.expand_dims %109 {axis = 0} : tensor<1x32xi32, #blocked3>
    %111 = tt.broadcast %110 : tensor<32x32xi32, #blocked3>
    %112 = tt.addptr %108, %111 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %113 = tt.splat %99 : tensor<32x32xi64, #blocked3>
    %114 = tt.addptr %112, %113 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %115 = tt.splat %101 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %15, %87, %114, %115
    %116 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %117 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %118 = arith.muli %104, %117 : tensor<32x1xi32, #blocked3>
    %119 = tt.addptr %116, %118 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %120 = tt.broadcast %119 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %121 = tt.addptr %120, %111 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %122 = tt.splat %100 : tensor<32x32xi64, #blocked3>
    %123 = tt.addptr %121, %122 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %124 = tt.splat %101 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %16, %87, %123, %124
    ttg.async_commit_group
    %125 = ttg.local_load %15, %81 : tensor<32x32xf16, #blocked3>
    %126 = ttg.local_load %16, %81 : tensor<32x32xf16, #blocked3>
    %127 = tt.dot %125, %126, %78 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    %128 = arith.addi %79, %13 : i64
    %129 = arith.addi %80, %14 : i64
    scf.yield %127, %128, %129, %90
  }
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %16
  ttg.local_dealloc %15
  %130 = ttg.convert_layout %73 : tensor<32x32xf32, #blocked2>
  %131 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %132 = tt.addptr %131, %8 : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %133 = ttg.convert_layout %132 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %134 = tt.broadcast %133 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  %135 = tt.addptr %134, %5 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  tt.store %135, %130
  tt.return
}
