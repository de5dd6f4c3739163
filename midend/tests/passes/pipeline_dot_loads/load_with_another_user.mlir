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
  %37 = arith.addi %5, %6 : i32
  %38 = arith.addi %2, %0 : i64
  %39 = arith.cmpi %37, %K {predicate = "slt"} : i1
  %40 = arith.constant {value = 1} : i32
  %41 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %42 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %43 = tt.expand_dims %42 {axis = 1} : tensor<32x1xi32, #blocked3>
  %44 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %45 = arith.muli %43, %44 : tensor<32x1xi32, #blocked3>
  %46 = tt.addptr %41, %45 : tensor<32x1x!tt.ptr<f16>, #blocked3>
  %47 = tt.broadcast %46 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %48 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %49 = tt.expand_dims %48 {axis = 0} : tensor<1x32xi32, #blocked3>
  %50 = tt.broadcast %49 : tensor<32x32xi32, #blocked3>
  %51 = tt.addptr %47, %50 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %52 = tt.splat %38 : tensor<32x32xi64, #blocked3>
  %53 = tt.addptr %51, %52 : tensor<32x32x!tt.ptr<f16>, #blocked3>
  %54 = tt.splat %39 : tensor<32x32xi1, #blocked3>
  ttg.async_copy_global_to_local %20, %40, %53, %54
  ttg.async_commit_group
  %55 = arith.constant {value = 0} : i32
  %56, %57, %58, %59, %60 = scf.for %5, %K, %6, %4, %3, %2, %2, %55 : tensor<32x32xf32, #mma>, tensor<32x32xf32, #blocked>, i64, i64, i32 {
  ^bb0(%61: i32, %62: tensor<32x32xf32, #mma>, %63: tensor<32x32xf32, #blocked>, %64: i64, %65: i64, %66: i32):
    ttg.async_wait {num = 1}
    gpu.barrier
    %67 = arith.constant {value = 0} : i32
    %68 = arith.constant {value = 1} : i32
    %69 = arith.constant {value = 3} : i32
    %70 = arith.constant {value = 2} : i32
    %71 = arith.addi %66, %70 : i32
    %72 = arith.cmpi %71, %69 {predicate = "sge"} : i1
    %73 = arith.subi %71, %69 : i32
    %74 = arith.select %72, %73, %71 : i32
    %75 = arith.constant {value = 2} : i32
    %76 = arith.cmpi %66, %75 {predicate = "eq"} : i1
    %77 = arith.addi %66, %68 : i32
    %78 = arith.select %76, %67, %77 : i32
    %79 = arith.addi %61, %6 : i32
    %80 = arith.addi %65, %0 : i64
    %81 = arith.addi %79, %6 : i32
    %82 = arith.addi %80, %0 : i64
    %83 = arith.cmpi %81, %K {predicate = "slt"} : i1
    %84 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %85 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %86 = tt.expand_dims %85 {axis = 1} : tensor<32x1xi32, #blocked3>
    %87 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %88 = arith.muli %86, %87 : tensor<32x1xi32, #blocked3>
    %89 = tt.addptr %84, %88 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %90 = tt.broadcast %89 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %91 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %92 = tt.expand_dims %91 {axis = 0} : tensor<1x32xi32, #blocked3>
    %93 = tt.broadcast %92 : tensor<32x32xi32, #blocked3>
    %94 = tt.addptr %90, %93 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %95 = tt.splat %82 : tensor<32x32xi64, #blocked3>
    %96 = tt.addptr %94, %95 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %97 = tt.splat %83 : tensor<32x32xi1, #blocked3>
    ttg.async_copy_global_to_local %20, %74, %96, %97
    ttg.async_commit_group
    %98 = ttg.local_load %20, %66 : tensor<32x32xf16, #blocked3>
    %99 = tt.splat %64 : tensor<32x32xi64, #blocked>
    %100 = tt.addptr %19, %99 : tensor<32x32x!tt.ptr<f16>, #blocked>
    %101 = tt.load %100 : tensor<32x32xf16, #blocked>
    %102 = arith.addi %65, %0 : i64
    %103 = arith.addi %64, %1 : i64
    %104 = arith.extf %101 : tensor<32x32xf32, #blocked>
    %105 = arith.addf %63, %104 : tensor<32x32xf32, #blocked>
    %106 = tt.dot %101, %98, %62 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    scf.yield %106, %105, %103, %102, %78
  }
  ttg.async_wait {num = 0}
  gpu.barrier
  ttg.local_dealloc %20
  %107 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %108 = arith.constant {value = 32} : tensor<32x1xi32, #blocked2>
  %109 = arith.muli %14, %108 : tensor<32x1xi32, #blocked2>
  %110 = tt.addptr %107, %109 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %111 = ttg.convert_layout %110 : tensor<32x1x!tt.ptr<f32>, #blocked>
  %112 = tt.broadcast %111 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %113 = tt.addptr %112, %10 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %114 = ttg.convert_layout %56 : tensor<32x32xf32, #blocked>
  tt.store %113, %114
  %115 = tt.splat %s_ptr : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %116 = tt.addptr %115, %109 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %117 = ttg.convert_layout %116 : tensor<32x1x!tt.ptr<f32>, #blocked>
  %118 = tt.broadcast %117 : tensor<32x32x!tt.ptr<f32>, #blocked>
  %119 = tt.addptr %118, %10 : tensor<32x32x!tt.ptr<f32>, #blocked>
  tt.store %119, %57
  tt.return
}
