// The vector-add kernel (tests/golden/ttir/vector_add.add_kernel.ttir) with n divisible by 16.
// By hand: pid*1024 is divisible by 1024; its splat is constant over 1024; adding arange(0, 1024)
// gives offsets contiguous over 1024, divisible by gcd(1024, 2^30) = 1024. Splatted pointers are
// 16-byte aligned; addptr gives contiguity 1024 and gcd(16, 1024 * 4 bytes) = 16 bytes. The mask
// offs < n changes value only at n, a multiple of 16: constant in blocks of gcd(1024, 1024, 16) = 16.
tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %output_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n_elements: i32 {tt.divisibility = 16}) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 1024} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
  %4 = tt.splat %2 : tensor<1024xi32>
  %5 = arith.addi %4, %3 : tensor<1024xi32>
  %6 = tt.splat %n_elements : tensor<1024xi32>
  %7 = arith.cmpi %5, %6 {predicate = "slt"} : tensor<1024xi1>
  %8 = tt.splat %x_ptr : tensor<1024x!tt.ptr<f32>>
  %9 = tt.addptr %8, %5 : tensor<1024x!tt.ptr<f32>>
  %10 = tt.load %9, %7 : tensor<1024xf32>
  %11 = tt.splat %y_ptr : tensor<1024x!tt.ptr<f32>>
  %12 = tt.addptr %11, %5 : tensor<1024x!tt.ptr<f32>>
  %13 = tt.load %12, %7 : tensor<1024xf32>
  %14 = arith.addf %10, %13 : tensor<1024xf32>
  %15 = tt.splat %output_ptr : tensor<1024x!tt.ptr<f32>>
  %16 = tt.addptr %15, %5 : tensor<1024x!tt.ptr<f32>>
  tt.store %16, %14, %7
  tt.return
}
// ----- expected
tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %output_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n_elements: i32 {tt.divisibility = 16}) {
  // %x_ptr: contiguity = [1], divisibility = [16], constancy = [1]
  // %y_ptr: contiguity = [1], divisibility = [16], constancy = [1]
  // %output_ptr: contiguity = [1], divisibility = [16], constancy = [1]
  // %n_elements: contiguity = [1], divisibility = [16], constancy = [1]
  %0 = tt.get_program_id {axis = 0} : i32
  // %0: contiguity = [1], divisibility = [1], constancy = [1]
  %1 = arith.constant {value = 1024} : i32
  // %1: contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024
  %2 = arith.muli %0, %1 : i32
  // %2: contiguity = [1], divisibility = [1024], constancy = [1]
  %3 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
  // %3: contiguity = [1024], divisibility = [1073741824], constancy = [1]
  %4 = tt.splat %2 : tensor<1024xi32>
  // %4: contiguity = [1], divisibility = [1024], constancy = [1024]
  %5 = arith.addi %4, %3 : tensor<1024xi32>
  // %5: contiguity = [1024], divisibility = [1024], constancy = [1]
  %6 = tt.splat %n_elements : tensor<1024xi32>
  // %6: contiguity = [1], divisibility = [16], constancy = [1024]
  %7 = arith.cmpi %5, %6 {predicate = "slt"} : tensor<1024xi1>
  // %7: contiguity = [1], divisibility = [1], constancy = [16]
  %8 = tt.splat %x_ptr : tensor<1024x!tt.ptr<f32>>
  // %8: contiguity = [1], divisibility = [16], constancy = [1024]
  %9 = tt.addptr %8, %5 : tensor<1024x!tt.ptr<f32>>
  // %9: contiguity = [1024], divisibility = [16], constancy = [1]
  %10 = tt.load %9, %7 : tensor<1024xf32>
  %11 = tt.splat %y_ptr : tensor<1024x!tt.ptr<f32>>
  // %11: contiguity = [1], divisibility = [16], constancy = [1024]
  %12 = tt.addptr %11, %5 : tensor<1024x!tt.ptr<f32>>
  // %12: contiguity = [1024], divisibility = [16], constancy = [1]
  %13 = tt.load %12, %7 : tensor<1024xf32>
  %14 = arith.addf %10, %13 : tensor<1024xf32>
  %15 = tt.splat %output_ptr : tensor<1024x!tt.ptr<f32>>
  // %15: contiguity = [1], divisibility = [16], constancy = [1024]
  %16 = tt.addptr %15, %5 : tensor<1024x!tt.ptr<f32>>
  // %16: contiguity = [1024], divisibility = [16], constancy = [1]
  tt.store %16, %14, %7
  tt.return
}
