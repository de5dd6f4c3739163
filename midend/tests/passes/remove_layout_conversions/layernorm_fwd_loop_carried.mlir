module attributes {ttg.num-warps = 8, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>

tt.func public @layernorm_fwd_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %w_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %mean_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %rstd_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %row_stride: i32 {tt.divisibility = 16}, %N: i32 {tt.divisibility = 16}, %eps: f32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.muli %0, %row_stride : i32
  %2 = tt.addptr %x_ptr, %1 : !tt.ptr<f16>
  %3 = tt.addptr %y_ptr, %1 : !tt.ptr<f16>
  %4 = arith.constant {value = 0.0} : tensor<1024xf32, #blocked>
  %5 = arith.constant {value = 0} : i32
  %6 = arith.constant {value = 1024} : i32
  %7 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %8 = tt.splat %2 : tensor<1024x!tt.ptr<f16>, #blocked>
  %9 = tt.splat %N : tensor<1024xi32, #blocked>
  %10 = arith.constant {value = 0.0} : tensor<1024xf16, #blocked>
  %11 = scf.for %5, %N, %6, %4 : tensor<1024xf32, #blocked> {
  ^bb0(%12: i32, %13: tensor<1024xf32, #blocked>):
    %14 = tt.splat %12 : tensor<1024xi32, #blocked>
    %15 = arith.addi %14, %7 : tensor<1024xi32, #blocked>
    %16 = tt.addptr %8, %15 : tensor<1024x!tt.ptr<f16>, #blocked>
    %17 = arith.cmpi %15, %9 {predicate = "slt"} : tensor<1024xi1, #blocked>
    %18 = tt.load %16, %17, %10 : tensor<1024xf16, #blocked>
    %19 = arith.extf %18 : tensor<1024xf32, #blocked>
    %20 = arith.addf %13, %19 : tensor<1024xf32, #blocked>
    scf.yield %20
  }
  %21 = tt.reduce %11 {axis = 0} : f32 {
  ^bb0(%22: f32, %23: f32):
    %24 = arith.addf %22, %23 : f32
    tt.reduce.return %24
  }
  %25 = arith.sitofp %N : f32
  %26 = arith.divf %21, %25 : f32
  %27 = tt.splat %26 : tensor<1024xf32, #blocked>
  %28 = scf.for %5, %N, %6, %4 : tensor<1024xf32, #blocked> {
  ^bb0(%29: i32, %30: tensor<1024xf32, #blocked>):
    %31 = tt.splat %29 : tensor<1024xi32, #blocked>
    %32 = arith.addi %31, %7 : tensor<1024xi32, #blocked>
    %33 = tt.addptr %8, %32 : tensor<1024x!tt.ptr<f16>, #blocked>
    %34 = arith.cmpi %32, %9 {predicate = "slt"} : tensor<1024xi1, #blocked>
    %35 = tt.load %33, %34, %10 : tensor<1024xf16, #blocked>
    %36 = arith.extf %35 : tensor<1024xf32, #blocked>
    %37 = arith.subf %36, %27 : tensor<1024xf32, #blocked>
    %38 = arith.select %34, %37, %4 : tensor<1024xf32, #blocked>
    %39 = arith.mulf %38, %38 : tensor<1024xf32, #blocked>
    %40 = arith.addf %30, %39 : tensor<1024xf32, #blocked>
    scf.yield %40
  }
  %41 = tt.reduce %28 {axis = 0} : f32 {
  ^bb0(%42: f32, %43: f32):
    %44 = arith.addf %42, %43 : f32
    tt.reduce.return %44
  }
  %45 = arith.divf %41, %25 : f32
  %46 = arith.addf %45, %eps : f32
  %47 = math.sqrt %46 : f32
  %48 = arith.constant {value = 1.0} : f32
  %49 = arith.divf %48, %47 : f32
  %50 = tt.addptr %mean_ptr, %0 : !tt.ptr<f32>
  tt.store %50, %26
  %51 = tt.addptr %rstd_ptr, %0 : !tt.ptr<f32>
  tt.store %51, %49
  %52 = tt.splat %w_ptr : tensor<1024x!tt.ptr<f16>, #blocked>
  %53 = tt.splat %b_ptr : tensor<1024x!tt.ptr<f16>, #blocked>
  %54 = tt.splat %49 : tensor<1024xf32, #blocked>
  %55 = tt.splat %3 : tensor<1024x!tt.ptr<f16>, #blocked>
  scf.for %5, %N, %6 {
  ^bb0(%56: i32):
    %57 = tt.splat %56 : tensor<1024xi32, #blocked>
    %58 = arith.addi %57, %7 : tensor<1024xi32, #blocked>
    %59 = arith.cmpi %58, %9 {predicate = "slt"} : tensor<1024xi1, #blocked>
    %60 = tt.addptr %8, %58 : tensor<1024x!tt.ptr<f16>, #blocked>
    %61 = tt.load %60, %59, %10 : tensor<1024xf16, #blocked>
    %62 = arith.extf %61 : tensor<1024xf32, #blocked>
    %63 = tt.addptr %52, %58 : tensor<1024x!tt.ptr<f16>, #blocked>
    %64 = tt.load %63, %59, %10 : tensor<1024xf16, #blocked>
    %65 = arith.extf %64 : tensor<1024xf32, #blocked>
    %66 = tt.addptr %53, %58 : tensor<1024x!tt.ptr<f16>, #blocked>
    %67 = tt.load %66, %59, %10 : tensor<1024xf16, #blocked>
    %68 = arith.extf %67 : tensor<1024xf32, #blocked>
    %69 = arith.subf %62, %27 : tensor<1024xf32, #blocked>
    %70 = arith.mulf %69, %54 : tensor<1024xf32, #blocked>
    %71 = arith.mulf %70, %65 : tensor<1024xf32, #blocked>
    %72 = arith.addf %71, %68 : tensor<1024xf32, #blocked>
    %73 = tt.addptr %55, %58 : tensor<1024x!tt.ptr<f16>, #blocked>
    %74 = arith.truncf %72 : tensor<1024xf16, #blocked>
    tt.store %73, %74, %59
    scf.yield
  }
  tt.return
}
// ----- expected
module attributes {ttg.num-warps = 8, ttg.threads-per-warp = 32}
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>

tt.func public @layernorm_fwd_kernel(%x_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %w_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %mean_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %rstd_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %row_stride: i32 {tt.divisibility = 16}, %N: i32 {tt.divisibility = 16}, %eps: f32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.muli %0, %row_stride : i32
  %2 = tt.addptr %x_ptr, %1 : !tt.ptr<f16>
  %3 = tt.addptr %y_ptr, %1 : !tt.ptr<f16>
  %4 = arith.constant {value = 0.0} : tensor<1024xf32, #blocked>
  %5 = arith.constant {value = 0.0} : tensor<1024xf32, #blocked>
  %6 = arith.constant {value = 0.0} : tensor<1024xf32, #blocked>
  %7 = arith.constant {value = 0} : i32
  %8 = arith.constant {value = 1024} : i32
  %9 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %10 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %11 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32, #blocked>
  %12 = tt.splat %2 : tensor<1024x!tt.ptr<f16>, #blocked>
  %13 = tt.splat %2 : tensor<1024x!tt.ptr<f16>, #blocked>
  %14 = tt.splat %2 : tensor<1024x!tt.ptr<f16>, #blocked>
  %15 = tt.splat %N : tensor<1024xi32, #blocked>
  %16 = tt.splat %N : tensor<1024xi32, #blocked>
  %17 = tt.splat %N : tensor<1024xi32, #blocked>
  %18 = arith.constant {value = 0.0} : tensor<1024xf16, #blocked>
  %19 = arith.constant {value = 0.0} : tensor<1024xf16, #blocked>
  %20 = arith.constant {value = 0.0} : tensor<1024xf16, #blocked>
  %21 = arith.constant {value = 0.0} : tensor<1024xf16, #blocked>
  %22 = arith.constant {value = 0.0} : tensor<1024xf16, #blocked>
  %23 = scf.for %7, %N, %8, %4 : tensor<1024xf32, #blocked> {
  ^bb0(%24: i32, %25: tensor<1024xf32, #blocked>):
    %26 = tt.splat %24 : tensor<1024xi32, #blocked>
    %27 = arith.addi %26, %9 : tensor<1024xi32, #blocked>
    %28 = tt.addptr %12, %27 : tensor<1024x!tt.ptr<f16>, #blocked>
    %29 = arith.cmpi %27, %15 {predicate = "slt"} : tensor<1024xi1, #blocked>
    %30 = tt.load %28, %29, %18 : tensor<1024xf16, #blocked>
    %31 = arith.extf %30 : tensor<1024xf32, #blocked>
    %32 = arith.addf %25, %31 : tensor<1024xf32, #blocked>
    scf.yield %32
  }
  %33 = tt.reduce %23 {axis = 0} : f32 {
  ^bb0(%34: f32, %35: f32):
    %36 = arith.addf %34, %35 : f32
    tt.reduce.return %36
  }
  %37 = arith.sitofp %N : f32
  %38 = arith.divf %33, %37 : f32
  %39 = tt.splat %38 : tensor<1024xf32, #blocked>
  %40 = tt.splat %38 : tensor<1024xf32, #blocked>
  %41 = scf.for %7, %N, %8, %6 : tensor<1024xf32, #blocked> {
  ^bb0(%42: i32, %43: tensor<1024xf32, #blocked>):
    %44 = tt.splat %42 : tensor<1024xi32, #blocked>
    %45 = arith.addi %44, %11 : tensor<1024xi32, #blocked>
    %46 = tt.addptr %14, %45 : tensor<1024x!tt.ptr<f16>, #blocked>
    %47 = arith.cmpi %45, %17 {predicate = "slt"} : tensor<1024xi1, #blocked>
    %48 = tt.load %46, %47, %22 : tensor<1024xf16, #blocked>
    %49 = arith.extf %48 : tensor<1024xf32, #blocked>
    %50 = arith.subf %49, %39 : tensor<1024xf32, #blocked>
    %51 = arith.select %47, %50, %5 : tensor<1024xf32, #blocked>
    %52 = arith.mulf %51, %51 : tensor<1024xf32, #blocked>
    %53 = arith.addf %43, %52 : tensor<1024xf32, #blocked>
    scf.yield %53
  }
  %54 = tt.reduce %41 {axis = 0} : f32 {
  ^bb0(%55: f32, %56: f32):
    %57 = arith.addf %55, %56 : f32
    tt.reduce.return %57
  }
  %58 = arith.divf %54, %37 : f32
  %59 = arith.addf %58, %eps : f32
  %60 = math.sqrt %59 : f32
  %61 = arith.constant {value = 1.0} : f32
  %62 = arith.divf %61, %60 : f32
  %63 = tt.addptr %mean_ptr, %0 : !tt.ptr<f32>
  tt.store %63, %38
  %64 = tt.addptr %rstd_ptr, %0 : !tt.ptr<f32>
  tt.store %64, %62
  %65 = tt.splat %w_ptr : tensor<1024x!tt.ptr<f16>, #blocked>
  %66 = tt.splat %b_ptr : tensor<1024x!tt.ptr<f16>, #blocked>
  %67 = tt.splat %62 : tensor<1024xf32, #blocked>
  %68 = tt.splat %3 : tensor<1024x!tt.ptr<f16>, #blocked>
  scf.for %7, %N, %8 {
  ^bb0(%69: i32):
    %70 = tt.splat %69 : tensor<1024xi32, #blocked>
    %71 = arith.addi %70, %10 : tensor<1024xi32, #blocked>
    %72 = arith.cmpi %71, %16 {predicate = "slt"} : tensor<1024xi1, #blocked>
    %73 = tt.addptr %13, %71 : tensor<1024x!tt.ptr<f16>, #blocked>
    %74 = tt.load %73, %72, %21 : tensor<1024xf16, #blocked>
    %75 = arith.extf %74 : tensor<1024xf32, #blocked>
    %76 = tt.addptr %65, %71 : tensor<1024x!tt.ptr<f16>, #blocked>
    %77 = tt.load %76, %72, %20 : tensor<1024xf16, #blocked>
    %78 = arith.extf %77 : tensor<1024xf32, #blocked>
    %79 = tt.addptr %66, %71 : tensor<1024x!tt.ptr<f16>, #blocked>
    %80 = tt.load %79, %72, %19 : tensor<1024xf16, #blocked>
    %81 = arith.extf %80 : tensor<1024xf32, #blocked>
    %82 = arith.subf %75, %40 : tensor<1024xf32, #blocked>
    %83 = arith.mulf %82, %67 : tensor<1024xf32, #blocked>
    %84 = arith.mulf %83, %78 : tensor<1024xf32, #blocked>
    %85 = arith.addf %84, %81 : tensor<1024xf32, #blocked>
    %86 = tt.addptr %68, %71 : tensor<1024x!tt.ptr<f16>, #blocked>
    %87 = arith.truncf %85 : tensor<1024xf16, #blocked>
    tt.store %86, %87, %72
    scf.yield
  }
  tt.return
}
