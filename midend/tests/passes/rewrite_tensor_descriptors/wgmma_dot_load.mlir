// A loop load feeding a dot that will be a warpgroup MMA (64x64 f16 over 4 warps on sm_90a)
// stays a descriptor load: pipeline-dot-loads streams it through a TMA ring.
tt.func public @kernel(%a: !tt.ptr<f16> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %k = arith.extsi %K : i64
  %one = arith.constant {value = 1} : i64
  %s64 = arith.constant {value = 64} : i32
  %da = tt.make_tensor_descriptor %a, %s64, %K, %k, %one {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %zero = arith.constant {value = 0} : i32
  %acc0 = arith.constant {value = 0.0} : tensor<64x64xf32>
  %acc = scf.for %zero, %K, %s64, %acc0 : tensor<64x64xf32> {
  ^bb0(%kk: i32, %acc1: tensor<64x64xf32>):
    %t = tt.descriptor_load %da, %zero, %kk : tensor<64x64xf16>
    %d = tt.dot %t, %t, %acc1 : tensor<64x64xf32>
    scf.yield %d
  }
  %p = tt.splat %a : tensor<64x64x!tt.ptr<f16>>
  %h = arith.truncf %acc : tensor<64x64xf16>
  tt.store %p, %h
  tt.return
}
// ----- expected
tt.func public @kernel(%a: !tt.ptr<f16> {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %K : i64
  %1 = arith.constant {value = 1} : i64
  %2 = arith.constant {value = 64} : i32
  %3 = tt.make_tensor_descriptor %a, %2, %K, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %4 = arith.constant {value = 0} : i32
  %5 = arith.constant {value = 0.0} : tensor<64x64xf32>
  %6 = scf.for %4, %K, %2, %5 : tensor<64x64xf32> {
  ^bb0(%7: i32, %8: tensor<64x64xf32>):
    %9 = tt.descriptor_load %3, %4, %7 : tensor<64x64xf16>
    %10 = tt.dot %9, %9, %8 : tensor<64x64xf32>
    scf.yield %10
  }
  %11 = tt.splat %a : tensor<64x64x!tt.ptr<f16>>
  %12 = arith.truncf %6 : tensor<64x64xf16>
  tt.store %11, %12
  tt.return
}
