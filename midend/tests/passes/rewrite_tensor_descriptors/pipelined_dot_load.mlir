// Loads that feed a dot inside a loop stay on the pointer path (the pipeliner streams them
// through cp.async rings); the store of the result keeps its descriptor.
tt.func public @kernel(%a: !tt.ptr<f16> {tt.divisibility = 16}, %c: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %k = arith.extsi %K : i64
  %one = arith.constant {value = 1} : i64
  %s16 = arith.constant {value = 16} : i32
  %s16l = arith.constant {value = 16} : i64
  %da = tt.make_tensor_descriptor %a, %s16, %K, %k, %one {padding = "zero"} : !tt.tensordesc<tensor<16x16xf16>>
  %dc = tt.make_tensor_descriptor %c, %s16, %s16, %s16l, %one {padding = "zero"} : !tt.tensordesc<tensor<16x16xf32>>
  %zero = arith.constant {value = 0} : i32
  %acc0 = arith.constant {value = 0.0} : tensor<16x16xf32>
  %acc = scf.for %zero, %K, %s16, %acc0 : tensor<16x16xf32> {
  ^bb0(%kk: i32, %acc1: tensor<16x16xf32>):
    %t = tt.descriptor_load %da, %zero, %kk : tensor<16x16xf16>
    %d = tt.dot %t, %t, %acc1 : tensor<16x16xf32>
    scf.yield %d
  }
  tt.descriptor_store %dc, %acc, %zero, %zero
  tt.return
}
// ----- expected
tt.func public @kernel(%a: !tt.ptr<f16> {tt.divisibility = 16}, %c: !tt.ptr<f32> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %K : i64
  %1 = arith.constant {value = 1} : i64
  %2 = arith.constant {value = 16} : i32
  %3 = arith.constant {value = 16} : i64
  %4 = tt.make_tensor_descriptor %c, %2, %2, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<16x16xf32>>
  %5 = arith.constant {value = 0} : i32
  %6 = arith.constant {value = 0.0} : tensor<16x16xf32>
  %7 = scf.for %5, %K, %2, %6 : tensor<16x16xf32> {
  ^bb0(%8: i32, %9: tensor<16x16xf32>):
    %10 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
    %11 = tt.splat %5 : tensor<16xi32>
    %12 = arith.addi %11, %10 : tensor<16xi32>
    %13 = tt.expand_dims %12 {axis = 1} : tensor<16x1xi32>
    %14 = arith.extsi %13 : tensor<16x1xi64>
    %15 = tt.splat %0 : tensor<16x1xi64>
    %16 = arith.muli %14, %15 : tensor<16x1xi64>
    %17 = tt.broadcast %16 : tensor<16x16xi64>
    %18 = arith.constant {value = 0} : tensor<16x1xi32>
    %19 = tt.splat %2 : tensor<16x1xi32>
    %20 = arith.cmpi %13, %18 {predicate = "sge"} : tensor<16x1xi1>
    %21 = arith.cmpi %13, %19 {predicate = "slt"} : tensor<16x1xi1>
    %22 = arith.andi %20, %21 : tensor<16x1xi1>
    %23 = tt.broadcast %22 : tensor<16x16xi1>
    %24 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
    %25 = tt.splat %8 : tensor<16xi32>
    %26 = arith.addi %25, %24 : tensor<16xi32>
    %27 = tt.expand_dims %26 {axis = 0} : tensor<1x16xi32>
    %28 = arith.extsi %27 : tensor<1x16xi64>
    %29 = tt.splat %1 : tensor<1x16xi64>
    %30 = arith.muli %28, %29 : tensor<1x16xi64>
    %31 = tt.broadcast %30 : tensor<16x16xi64>
    %32 = arith.addi %17, %31 : tensor<16x16xi64>
    %33 = arith.constant {value = 0} : tensor<1x16xi32>
    %34 = tt.splat %K : tensor<1x16xi32>
    %35 = arith.cmpi %27, %33 {predicate = "sge"} : tensor<1x16xi1>
    %36 = arith.cmpi %27, %34 {predicate = "slt"} : tensor<1x16xi1>
    %37 = arith.andi %35, %36 : tensor<1x16xi1>
    %38 = tt.broadcast %37 : tensor<16x16xi1>
    %39 = arith.andi %23, %38 : tensor<16x16xi1>
    %40 = tt.splat %a : tensor<16x16x!tt.ptr<f16>>
    %41 = tt.addptr %40, %32 : tensor<16x16x!tt.ptr<f16>>
    %42 = arith.constant {value = 0.0} : tensor<16x16xf16>
    %43 = tt.load %41, %39, %42 : tensor<16x16xf16>
    %44 = tt.dot %43, %43, %9 : tensor<16x16xf32>
    scf.yield %44
  }
  tt.descriptor_store %4, %7, %5, %5
  tt.return
}
