module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#slice = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice1 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#blocked2 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#blocked3 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @dot_loop(%a_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
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
    %22 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %23 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %24 = tt.expand_dims %23 {axis = 1} : tensor<32x1xi32, #blocked3>
    %25 = tt.splat %K : tensor<32x1xi32, #blocked3>
    %26 = arith.muli %24, %25 : tensor<32x1xi32, #blocked3>
    %27 = tt.addptr %22, %26 : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %28 = tt.broadcast %27 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %29 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %30 = tt.expand_dims %29 {axis = 0} : tensor<1x32xi32, #blocked3>
    %31 = tt.broadcast %30 : tensor<32x32xi32, #blocked3>
    %32 = tt.addptr %28, %31 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %33 = tt.splat %20 : tensor<32x32xi64, #blocked3>
    %34 = tt.addptr %32, %33 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %35 = tt.load %34 : tensor<32x32xf32, #blocked3>
    %36 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %37 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %38 = arith.muli %24, %37 : tensor<32x1xi32, #blocked3>
    %39 = tt.addptr %36, %38 : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %40 = tt.broadcast %39 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %41 = tt.addptr %40, %31 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %42 = tt.splat %21 : tensor<32x32xi64, #blocked3>
    %43 = tt.addptr %41, %42 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %44 = tt.load %43 : tensor<32x32xf32, #blocked3>
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
#blocked3 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#slice2 = #ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>
#slice3 = #ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>

tt.func public @dot_loop(%a_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
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
  %15 = arith.cmpi %10, %K {predicate = "slt"} : i1
  %16 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f32>, #blocked3>
  %17 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
  %18 = tt.expand_dims %17 {axis = 1} : tensor<32x1xi32, #blocked3>
  %19 = tt.splat %K : tensor<32x1xi32, #blocked3>
  %20 = arith.muli %18, %19 : tensor<32x1xi32, #blocked3>
  %21 = tt.addptr %16, %20 : tensor<32x1x!tt.ptr<f32>, #blocked3>
  %22 = tt.broadcast %21 : tensor<32x32x!tt.ptr<f32>, #blocked3>
  %23 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
  %24 = tt.expand_dims %23 {axis = 0} : tensor<1x32xi32, #blocked3>
  %25 = tt.broadcast %24 : tensor<32x32xi32, #blocked3>
  %26 = tt.addptr %22, %25 : tensor<32x32x!tt.ptr<f32>, #blocked3>
  %27 = tt.splat %12 : tensor<32x32xi64, #blocked3>
  %28 = tt.addptr %26, %27 : tensor<32x32x!tt.ptr<f32>, #blocked3>
  %29 = tt.splat %15 : tensor<32x32xi1, #blocked3>
  %30 = tt.load %28, %29 : tensor<32x32xf32, #blocked3>
  %31 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f32>, #blocked3>
  %32 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
  %33 = arith.muli %18, %32 : tensor<32x1xi32, #blocked3>
  %34 = tt.addptr %31, %33 : tensor<32x1x!tt.ptr<f32>, #blocked3>
  %35 = tt.broadcast %34 : tensor<32x32x!tt.ptr<f32>, #blocked3>
  %36 = tt.addptr %35, %25 : tensor<32x32x!tt.ptr<f32>, #blocked3>
  %37 = tt.splat %12 : tensor<32x32xi64, #blocked3>
  %38 = tt.addptr %36, %37 : tensor<32x32x!tt.ptr<f32>, #blocked3>
  %39 = tt.splat %15 : tensor<32x32xi1, #blocked3>
  %40 = tt.load %38, %39 : tensor<32x32xf32, #blocked3>
  %41, %42, %43, %44, %45 = scf.for %10, %K, %6, %11, %12, %12, %30, %40 : tensor<32x32xf32, #mma>, i64, i64, tensor<32x32xf32, #blocked3>, tensor<32x32xf32, #blocked3> {
  ^bb0(%46: i32, %47: tensor<32x32xf32, #mma>, %48: i64, %49: i64, %50: tensor<32x32xf32, #blocked3>, %51: tensor<32x32xf32, #blocked3>):
    %52 = arith.addi %46, %6 : i32
    %53 = arith.addi %48, %13 : i64
    %54 = arith.addi %49, %14 : i64
    %55 = arith.cmpi %52, %K {predicate = "slt"} : i1
    %56 = tt.splat %a_ptr : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %57 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice2>
    %58 = tt.expand_dims %57 {axis = 1} : tensor<32x1xi32, #blocked3>
    %59 = tt.splat %K : tensor<32x1xi32, #blocked3>
    %60 = arith.muli %58, %59 : tensor<32x1xi32, #blocked3>
    %61 = tt.addptr %56, %60 : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %62 = tt.broadcast %61 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %63 = tt.make_range {start = 0, end = 32} : tensor<32xi32, #slice3>
    %64 = tt.expand_dims %63 {axis = 0} : tensor<1x32xi32, #blocked3>
    %65 = tt.broadcast %64 : tensor<32x32xi32, #blocked3>
    %66 = tt.addptr %62, %65 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %67 = tt.splat %53 : tensor<32x32xi64, #blocked3>
    %68 = tt.addptr %66, %67 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %69 = tt.splat %55 : tensor<32x32xi1, #blocked3>
    %70 = tt.load %68, %69 : tensor<32x32xf32, #blocked3>
    %71 = tt.splat %b_ptr : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %72 = arith.constant {value = 32} : tensor<32x1xi32, #blocked3>
    %73 = arith.muli %58, %72 : tensor<32x1xi32, #blocked3>
    %74 = tt.addptr %71, %73 : tensor<32x1x!tt.ptr<f32>, #blocked3>
    %75 = tt.broadcast %74 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %76 = tt.addptr %75, %65 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %77 = tt.splat %54 : tensor<32x32xi64, #blocked3>
    %78 = tt.addptr %76, %77 : tensor<32x32x!tt.ptr<f32>, #blocked3>
    %79 = tt.splat %55 : tensor<32x32xi1, #blocked3>
    %80 = tt.load %78, %79 : tensor<32x32xf32, #blocked3>
    %81 = tt.dot %50, %51, %47 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<32x32xf32, #mma>
    %82 = arith.addi %48, %13 : i64
    %83 = arith.addi %49, %14 : i64
    scf.yield %81, %82, %83, %70, %80
  }
  %84 = ttg.convert_layout %41 : tensor<32x32xf32, #blocked2>
  %85 = tt.splat %c_ptr : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %86 = tt.addptr %85, %8 : tensor<32x1x!tt.ptr<f32>, #blocked1>
  %87 = ttg.convert_layout %86 : tensor<32x1x!tt.ptr<f32>, #blocked2>
  %88 = tt.broadcast %87 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  %89 = tt.addptr %88, %5 : tensor<32x32x!tt.ptr<f32>, #blocked2>
  tt.store %89, %84
  tt.return
}
