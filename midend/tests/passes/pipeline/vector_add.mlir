// A vector add as the frontend lowers it (with a helper and literal constants): after the TTIR
// pipeline the helper is inlined, constants folded and shared, and nothing dead is left.
tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32) {
  %pid = tt.get_program_id {axis = 0} : i32
  %c512 = arith.constant {value = 512} : i32
  %c2 = arith.constant {value = 2} : i32
  %block = arith.muli %c512, %c2 : i32
  %start = arith.muli %pid, %block : i32
  %range = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
  %start_splat = tt.splat %start : tensor<1024xi32>
  %offs = arith.addi %start_splat, %range : tensor<1024xi32>
  %n_splat = tt.splat %n : tensor<1024xi32>
  %mask = arith.cmpi %offs, %n_splat {predicate = "slt"} : tensor<1024xi1>
  %x_base = tt.splat %x_ptr : tensor<1024x!tt.ptr<f32>>
  %x_ptrs = tt.addptr %x_base, %offs : tensor<1024x!tt.ptr<f32>>
  %x = tt.load %x_ptrs, %mask : tensor<1024xf32>
  %y_base = tt.splat %y_ptr : tensor<1024x!tt.ptr<f32>>
  %y_ptrs = tt.addptr %y_base, %offs : tensor<1024x!tt.ptr<f32>>
  %y = tt.load %y_ptrs, %mask : tensor<1024xf32>
  %unused = tt.load %y_ptrs, %mask : tensor<1024xf32>
  %sum = tt.call %x, %y {callee = "add"} : tensor<1024xf32>
  %n_splat2 = tt.splat %n : tensor<1024xi32>
  %mask2 = arith.cmpi %offs, %n_splat2 {predicate = "slt"} : tensor<1024xi1>
  %out_base = tt.splat %out_ptr : tensor<1024x!tt.ptr<f32>>
  %out_ptrs = tt.addptr %out_base, %offs : tensor<1024x!tt.ptr<f32>>
  tt.store %out_ptrs, %sum, %mask2
  tt.return
}

tt.func private @add(%a: tensor<1024xf32>, %b: tensor<1024xf32>) -> (tensor<1024xf32>) {
  %zero = arith.constant {value = 0.0} : tensor<1024xf32>
  %0 = arith.addf %a, %b : tensor<1024xf32>
  %1 = arith.addf %0, %zero : tensor<1024xf32>
  tt.return %1
}
// ----- expected
tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %n: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.constant {value = 1024} : i32
  %2 = arith.muli %0, %1 : i32
  %3 = tt.make_range {start = 0, end = 1024} : tensor<1024xi32>
  %4 = tt.splat %2 : tensor<1024xi32>
  %5 = arith.addi %4, %3 : tensor<1024xi32>
  %6 = tt.splat %n : tensor<1024xi32>
  %7 = arith.cmpi %5, %6 {predicate = "slt"} : tensor<1024xi1>
  %8 = tt.splat %x_ptr : tensor<1024x!tt.ptr<f32>>
  %9 = tt.addptr %8, %5 : tensor<1024x!tt.ptr<f32>>
  %10 = tt.load %9, %7 : tensor<1024xf32>
  %11 = tt.splat %y_ptr : tensor<1024x!tt.ptr<f32>>
  %12 = tt.addptr %11, %5 : tensor<1024x!tt.ptr<f32>>
  %13 = tt.load %12, %7 : tensor<1024xf32>
  %14 = arith.constant {value = 0.0} : tensor<1024xf32>
  %15 = arith.addf %10, %13 : tensor<1024xf32>
  %16 = arith.addf %15, %14 : tensor<1024xf32>
  %17 = tt.splat %out_ptr : tensor<1024x!tt.ptr<f32>>
  %18 = tt.addptr %17, %5 : tensor<1024x!tt.ptr<f32>>
  tt.store %18, %16, %7
  tt.return
}
