module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @matmul_kernel(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32 {tt.divisibility = 16}, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}, %stride_am: i32 {tt.divisibility = 16}, %stride_bk: i32 {tt.divisibility = 16}, %stride_cm: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 32} : i32
  %2 = arith.addi %M, %1 : i32
  %3 = arith.constant {value = 1} : i32
  %4 = arith.subi %2, %3 : i32
  %5 = arith.divsi %4, %1 : i32
  %6 = arith.addi %N, %1 : i32
  %7 = arith.subi %6, %3 : i32
  %8 = arith.divsi %7, %1 : i32
  %9 = arith.constant {value = 2} : i32
  %10 = arith.muli %9, %8 : i32
  %11 = arith.divsi %0, %10 : i32
  %12 = arith.muli %11, %9 : i32
  %13 = arith.subi %5, %12 : i32
  %14 = arith.minsi %13, %9 : i32
  %15 = arith.remsi %0, %10 : i32
  %16 = arith.remsi %15, %14 : i32
  %17 = arith.addi %12, %16 : i32
  %18 = arith.divsi %15, %14 : i32
  %19 = arith.muli %17, %1 : i32
  %20 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked>
  %21 = tt.splat %19 : tensor<32xi32, #blocked>
  %22 = arith.addi %21, %20 {tt.divisibility = [32], tt.contiguity = [32]} : tensor<32xi32, #blocked>
  %23 = arith.muli %18, %1 : i32
  %24 = tt.splat %23 : tensor<32xi32, #blocked>
  %25 = arith.addi %24, %20 {tt.divisibility = [32], tt.contiguity = [32]} : tensor<32xi32, #blocked>
  %26 = ttg.convert_layout %22 : tensor<32xi32, #slice>
  %27 = tt.expand_dims %26 {axis = 1} : tensor<32x1xi32, #blocked1>
  %28 = tt.splat %stride_am : tensor<32x1xi32, #blocked1>
  %29 = arith.muli %27, %28 : tensor<32x1xi32, #blocked1>
  %30 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %31 = tt.addptr %30, %29 : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %32 = ttg.convert_layout %20 : tensor<32xi32, #slice1>
  %33 = tt.expand_dims %32 {axis = 0} : tensor<1x32xi32, #blocked2>
  %34 = ttg.convert_layout %31 : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %35 = tt.broadcast %34 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %36 = tt.broadcast %33 : tensor<32x32xi32, #blocked2>
  %37 = tt.addptr %35, %36 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %38 = ttg.convert_layout %20 : tensor<32xi32, #slice>
  %39 = tt.expand_dims %38 {axis = 1} : tensor<32x1xi32, #blocked1>
  %40 = tt.splat %stride_bk : tensor<32x1xi32, #blocked1>
  %41 = arith.muli %39, %40 : tensor<32x1xi32, #blocked1>
  %42 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %43 = tt.addptr %42, %41 : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %44 = ttg.convert_layout %25 : tensor<32xi32, #slice1>
  %45 = tt.expand_dims %44 {axis = 0} : tensor<1x32xi32, #blocked2>
  %46 = ttg.convert_layout %43 : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %47 = tt.broadcast %46 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %48 = tt.broadcast %45 : tensor<32x32xi32, #blocked2>
  %49 = tt.addptr %47, %48 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %50 = tt.splat %M : tensor<32x1xi32, #blocked1>
  %51 = arith.cmpi %27, %50 {predicate = "slt"} : tensor<32x1xi1, #blocked1>
  %52 = tt.splat %N : tensor<1x32xi32, #blocked2>
  %53 = arith.cmpi %45, %52 {predicate = "slt"} : tensor<1x32xi1, #blocked2>
  %54 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked2>
  %55 = arith.constant {value = 0} : i32
  %56 = ttg.convert_layout %51 : tensor<32x1xi1, #blocked2>
  %57 = tt.broadcast %56 : tensor<32x32xi1, #blocked2>
  %58 = arith.constant {value = 0.0} : tensor<32x32xf16, #blocked2>
  %59 = tt.broadcast %53 : tensor<32x32xi1, #blocked2>
  %60 = arith.constant {value = 32} : tensor<32x32xi32, #blocked2>
  %61 = arith.muli %1, %stride_bk : i32
  %62 = tt.splat %61 : tensor<32x32xi32, #blocked2>
  %63, %64, %65 = scf.for %55, %K, %1, %37, %54, %49 : tensor<32x32x!tt.ptr<f16>, #blocked2>, tensor<32x32xf32, #blocked2>, tensor<32x32x!tt.ptr<f16>, #blocked2> {
  ^bb0(%66: i32, %67: tensor<32x32x!tt.ptr<f16>, #blocked2>, %68: tensor<32x32xf32, #blocked2>, %69: tensor<32x32x!tt.ptr<f16>, #blocked2>):
    %70 = arith.subi %K, %66 : i32
    %71 = tt.splat %70 : tensor<1x32xi32, #blocked2>
    %72 = arith.cmpi %33, %71 {predicate = "slt"} : tensor<1x32xi1, #blocked2>
    %73 = tt.broadcast %72 : tensor<32x32xi1, #blocked2>
    %74 = arith.andi %57, %73 : tensor<32x32xi1, #blocked2>
    %75 = tt.load %67, %74, %58 : tensor<32x32xf16, #blocked2>
    %76 = tt.splat %70 : tensor<32x1xi32, #blocked1>
    %77 = arith.cmpi %39, %76 {predicate = "slt"} : tensor<32x1xi1, #blocked1>
    %78 = ttg.convert_layout %77 : tensor<32x1xi1, #blocked2>
    %79 = tt.broadcast %78 : tensor<32x32xi1, #blocked2>
    %80 = arith.andi %79, %59 : tensor<32x32xi1, #blocked2>
    %81 = tt.load %69, %80, %58 : tensor<32x32xf16, #blocked2>
    %82 = tt.dot %75, %81, %68 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #blocked2>
    %83 = tt.addptr %67, %60 : tensor<32x32x!tt.ptr<f16>, #blocked2>
    %84 = tt.addptr %69, %62 : tensor<32x32x!tt.ptr<f16>, #blocked2>
    scf.yield %83, %82, %84
  }
  %85 = tt.splat %stride_cm : tensor<32x1xi32, #blocked1>
  %86 = arith.muli %27, %85 : tensor<32x1xi32, #blocked1>
  %87 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %88 = tt.addptr %87, %86 : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %89 = ttg.convert_layout %88 : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %90 = tt.broadcast %89 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %91 = tt.addptr %90, %48 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %92 = arith.truncf %64 : tensor<32x32xf16, #blocked2>
  %93 = arith.andi %57, %59 : tensor<32x32xi1, #blocked2>
  tt.store %91, %92, %93
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @matmul_kernel(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32 {tt.divisibility = 16}, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}, %stride_am: i32 {tt.divisibility = 16}, %stride_bk: i32 {tt.divisibility = 16}, %stride_cm: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 32} : i32
  %2 = arith.addi %M, %1 : i32
  %3 = arith.constant {value = 1} : i32
  %4 = arith.subi %2, %3 : i32
  %5 = arith.divsi %4, %1 : i32
  %6 = arith.addi %N, %1 : i32
  %7 = arith.subi %6, %3 : i32
  %8 = arith.divsi %7, %1 : i32
  %9 = arith.constant {value = 2} : i32
  %10 = arith.muli %9, %8 : i32
  %11 = arith.divsi %0, %10 : i32
  %12 = arith.muli %11, %9 : i32
  %13 = arith.subi %5, %12 : i32
  %14 = arith.minsi %13, %9 : i32
  %15 = arith.remsi %0, %10 : i32
  %16 = arith.remsi %15, %14 : i32
  %17 = arith.addi %12, %16 : i32
  %18 = arith.divsi %15, %14 : i32
  %19 = arith.muli %17, %1 : i32
  %20 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked>
  %21 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #blocked>
  %22 = tt.splat %19 : tensor<32xi32, #blocked>
  %23 = arith.addi %22, %20 {tt.divisibility = [32], tt.contiguity = [32]} : tensor<32xi32, #blocked>
  %24 = arith.muli %18, %1 : i32
  %25 = tt.splat %24 : tensor<32xi32, #blocked>
  %26 = arith.addi %25, %21 {tt.divisibility = [32], tt.contiguity = [32]} : tensor<32xi32, #blocked>
  %27 = ttg.convert_layout %23 : tensor<32xi32, #slice>
  %28 = tt.expand_dims %27 {axis = 1} : tensor<32x1xi32, #blocked1>
  %29 = ttg.convert_layout %26 : tensor<32xi32, #slice1>
  %30 = tt.expand_dims %29 {axis = 0} : tensor<1x32xi32, #blocked2>
  %31 = tt.broadcast %30 : tensor<32x32xi32, #blocked2>
  %32 = tt.splat %M : tensor<32x1xi32, #blocked1>
  %33 = arith.cmpi %28, %32 {predicate = "slt"} : tensor<32x1xi1, #blocked1>
  %34 = tt.splat %N : tensor<1x32xi32, #blocked2>
  %35 = arith.cmpi %30, %34 {predicate = "slt"} : tensor<1x32xi1, #blocked2>
  %36 = arith.constant {value = 0.0} : tensor<32x32xf32, #blocked2>
  %37 = arith.constant {value = 0} : i32
  %38 = ttg.convert_layout %33 : tensor<32x1xi1, #blocked2>
  %39 = tt.broadcast %38 : tensor<32x32xi1, #blocked2>
  %40 = tt.broadcast %35 : tensor<32x32xi1, #blocked2>
  %41 = arith.muli %1, %stride_bk : i32
  %42 = arith.constant {value = 0} : i64
  %43 = arith.constant {value = 32} : i64
  %44 = arith.constant {value = 0} : i64
  %45, %46, %47 = scf.for %37, %K, %1, %36, %42, %44 : tensor<32x32xf32, #blocked2>, i64, i64 {
  ^bb0(%48: i32, %49: tensor<32x32xf32, #blocked2>, %50: i64, %51: i64):
    %52 = arith.subi %K, %48 : i32
    %53 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %54 = tt.splat %19 : tensor<32xi32, #slice2>
    %55 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %56 = arith.addi %54, %55 {tt.divisibility = [32], tt.contiguity = [32]} : tensor<32xi32, #slice2>
    %57 = tt.expand_dims %56 {axis = 1} : tensor<32x1xi32, #blocked3>
    %58 = tt.splat %stride_am : tensor<32x1xi32, #blocked3>
    %59 = arith.muli %57, %58 : tensor<32x1xi32, #blocked3>
    %60 = tt.addptr %53, %59 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %61 = tt.broadcast %60 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %62 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %63 = tt.expand_dims %62 {axis = 0} : tensor<1x32xi32, #blocked3>
    %64 = tt.broadcast %63 : tensor<32x32xi32, #blocked3>
    %65 = tt.addptr %61, %64 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %66 = tt.splat %50 : tensor<32x32xi64, #blocked3>
    %67 = tt.addptr %65, %66 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %68 = tt.splat %M : tensor<32x1xi32, #blocked3>
    %69 = arith.cmpi %57, %68 {predicate = "slt"} : tensor<32x1xi1, #blocked3>
    %70 = tt.broadcast %69 : tensor<32x32xi1, #blocked3>
    %71 = tt.expand_dims %62 {axis = 0} : tensor<1x32xi32, #blocked3>
    %72 = tt.splat %52 : tensor<1x32xi32, #blocked3>
    %73 = arith.cmpi %71, %72 {predicate = "slt"} : tensor<1x32xi1, #blocked3>
    %74 = tt.broadcast %73 : tensor<32x32xi1, #blocked3>
    %75 = arith.andi %70, %74 : tensor<32x32xi1, #blocked3>
    %76 = arith.constant {value = 0.0} : tensor<32x32xf16, #blocked3>
    %77 = tt.load %67, %75, %76 : tensor<32x32xf16, #blocked3>
    %78 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %79 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %80 = tt.expand_dims %79 {axis = 1} : tensor<32x1xi32, #blocked3>
    %81 = tt.splat %stride_bk : tensor<32x1xi32, #blocked3>
    %82 = arith.muli %80, %81 : tensor<32x1xi32, #blocked3>
    %83 = tt.addptr %78, %82 : tensor<32x1x!tt.ptr<f16>, #blocked3>
    %84 = tt.broadcast %83 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %85 = tt.splat %24 : tensor<32xi32, #slice3>
    %86 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %87 = arith.addi %85, %86 {tt.divisibility = [32], tt.contiguity = [32]} : tensor<32xi32, #slice3>
    %88 = tt.expand_dims %87 {axis = 0} : tensor<1x32xi32, #blocked3>
    %89 = tt.broadcast %88 : tensor<32x32xi32, #blocked3>
    %90 = tt.addptr %84, %89 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %91 = tt.splat %51 : tensor<32x32xi64, #blocked3>
    %92 = tt.addptr %90, %91 : tensor<32x32x!tt.ptr<f16>, #blocked3>
    %93 = tt.splat %52 : tensor<32x1xi32, #blocked3>
    %94 = arith.cmpi %80, %93 {predicate = "slt"} : tensor<32x1xi1, #blocked3>
    %95 = tt.broadcast %94 : tensor<32x32xi1, #blocked3>
    %96 = tt.expand_dims %87 {axis = 0} : tensor<1x32xi32, #blocked3>
    %97 = tt.splat %N : tensor<1x32xi32, #blocked3>
    %98 = arith.cmpi %96, %97 {predicate = "slt"} : tensor<1x32xi1, #blocked3>
    %99 = tt.broadcast %98 : tensor<32x32xi1, #blocked3>
    %100 = arith.andi %95, %99 : tensor<32x32xi1, #blocked3>
    %101 = arith.constant {value = 0.0} : tensor<32x32xf16, #blocked3>
    %102 = tt.load %92, %100, %101 : tensor<32x32xf16, #blocked3>
    %103 = tt.dot %77, %102, %49 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #blocked2>
    %104 = arith.addi %50, %43 : i64
    %105 = arith.extsi %41 : i64
    %106 = arith.addi %51, %105 : i64
    scf.yield %103, %104, %106
  }
  %107 = tt.splat %stride_cm : tensor<32x1xi32, #blocked1>
  %108 = arith.muli %28, %107 : tensor<32x1xi32, #blocked1>
  %109 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %110 = tt.addptr %109, %108 : tensor<32x1x!tt.ptr<f16>, #blocked1>
  %111 = ttg.convert_layout %110 : tensor<32x1x!tt.ptr<f16>, #blocked2>
  %112 = tt.broadcast %111 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %113 = tt.addptr %112, %31 : tensor<32x32x!tt.ptr<f16>, #blocked2>
  %114 = arith.truncf %45 : tensor<32x32xf16, #blocked2>
  %115 = arith.andi %39, %40 : tensor<32x32xi1, #blocked2>
  tt.store %113, %114, %115
  tt.return
}
