// A descriptor also loaded outside any loop keeps its load there synchronous, reading the tile
// unswizzled, so its tensor map takes no swizzle and its loop load gets no ring (the loop's
// loads get rings all together or not at all): both loads in the loop stay synchronous.
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @loaded_outside_a_loop(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %K : i64
  %1 = arith.constant {value = 1} : i64
  %2 = tt.make_tensor_descriptor %a_ptr, %M, %K, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x32xf16>>
  %3 = arith.extsi %N : i64
  %4 = tt.make_tensor_descriptor %b_ptr, %K, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<32x64xf16>>
  %5 = tt.make_tensor_descriptor %c_ptr, %M, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %6 = tt.get_program_id {axis = 0} : i32
  %7 = arith.constant {value = 64} : i32
  %8 = arith.muli %6, %7 : i32
  %9 = tt.get_program_id {axis = 1} : i32
  %10 = arith.muli %9, %7 : i32
  %11 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %12 = arith.constant {value = 0} : i32
  %13 = arith.constant {value = 32} : i32
  %14 = ttg.convert_layout %11 : tensor<64x64xf32, #mma>
  %15 = scf.for %12, %K, %13, %14 : tensor<64x64xf32, #mma> {
  ^bb0(%16: i32, %17: tensor<64x64xf32, #mma>):
    %18 = tt.descriptor_load %2, %8, %16 : tensor<64x32xf16, #blocked1>
    %19 = tt.descriptor_load %4, %16, %10 : tensor<32x64xf16, #blocked>
    %20 = ttng.warp_group_dot %18, %19, %17 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    %21 = ttg.convert_layout %20 : tensor<64x64xf32, #blocked>
    scf.yield %20
  }
  %extra = tt.descriptor_load %2, %8, %12 : tensor<64x32xf16, #blocked1>
  %side = tt.make_tensor_descriptor %c_ptr, %M, %K, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x32xf16>>
  %22 = arith.truncf %15 : tensor<64x64xf16, #mma>
  %23 = ttg.convert_layout %22 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %23, %8, %10
  tt.descriptor_store %side, %extra, %8, %12
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>

tt.func public @loaded_outside_a_loop(%a_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %b_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %c_ptr: !tt.ptr<f16> {tt.divisibility = 16}, %M: i32, %N: i32 {tt.divisibility = 16}, %K: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %K : i64
  %1 = arith.constant {value = 1} : i64
  %2 = tt.make_tensor_descriptor %a_ptr, %M, %K, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x32xf16>>
  %3 = arith.extsi %N : i64
  %4 = tt.make_tensor_descriptor %b_ptr, %K, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<32x64xf16>>
  %5 = tt.make_tensor_descriptor %c_ptr, %M, %N, %3, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %6 = tt.get_program_id {axis = 0} : i32
  %7 = arith.constant {value = 64} : i32
  %8 = arith.muli %6, %7 : i32
  %9 = tt.get_program_id {axis = 1} : i32
  %10 = arith.muli %9, %7 : i32
  %11 = arith.constant {value = 0.0} : tensor<64x64xf32, #blocked>
  %12 = arith.constant {value = 0} : i32
  %13 = arith.constant {value = 32} : i32
  %14 = ttg.convert_layout %11 : tensor<64x64xf32, #mma>
  %15 = scf.for %12, %K, %13, %14 : tensor<64x64xf32, #mma> {
  ^bb0(%16: i32, %17: tensor<64x64xf32, #mma>):
    %18 = tt.descriptor_load %2, %8, %16 : tensor<64x32xf16, #blocked1>
    %19 = tt.descriptor_load %4, %16, %10 : tensor<32x64xf16, #blocked>
    %20 = ttng.warp_group_dot %18, %19, %17 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32, #mma>
    scf.yield %20
  }
  %21 = tt.descriptor_load %2, %8, %12 : tensor<64x32xf16, #blocked1>
  %22 = tt.make_tensor_descriptor %c_ptr, %M, %K, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<64x32xf16>>
  %23 = arith.truncf %15 : tensor<64x64xf16, #mma>
  %24 = ttg.convert_layout %23 : tensor<64x64xf16, #blocked>
  tt.descriptor_store %5, %24, %8, %10
  tt.descriptor_store %22, %21, %8, %12
  tt.return
}
