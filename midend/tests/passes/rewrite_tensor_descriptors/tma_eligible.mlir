// On sm_90a (num_stages 3) a descriptor whose base is 16-byte aligned, whose row stride is a
// multiple of 16 bytes and whose last stride is 1 keeps its load and store for TMA.
tt.func public @kernel(%x: !tt.ptr<f32> {tt.divisibility = 16}, %y: !tt.ptr<f32> {tt.divisibility = 16}, %R: i32, %C: i32 {tt.divisibility = 16}) {
  %c = arith.extsi %C : i64
  %one = arith.constant {value = 1} : i64
  %dx = tt.make_tensor_descriptor %x, %R, %C, %c, %one {padding = "zero"} : !tt.tensordesc<tensor<32x64xf32>>
  %dy = tt.make_tensor_descriptor %y, %R, %C, %c, %one {padding = "zero"} : !tt.tensordesc<tensor<32x64xf32>>
  %zero = arith.constant {value = 0} : i32
  %v = tt.descriptor_load %dx, %zero, %zero : tensor<32x64xf32>
  tt.descriptor_store %dy, %v, %zero, %zero
  tt.return
}
// ----- expected
tt.func public @kernel(%x: !tt.ptr<f32> {tt.divisibility = 16}, %y: !tt.ptr<f32> {tt.divisibility = 16}, %R: i32, %C: i32 {tt.divisibility = 16}) {
  %0 = arith.extsi %C : i64
  %1 = arith.constant {value = 1} : i64
  %2 = tt.make_tensor_descriptor %x, %R, %C, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<32x64xf32>>
  %3 = tt.make_tensor_descriptor %y, %R, %C, %0, %1 {padding = "zero"} : !tt.tensordesc<tensor<32x64xf32>>
  %4 = arith.constant {value = 0} : i32
  %5 = tt.descriptor_load %2, %4, %4 : tensor<32x64xf32>
  tt.descriptor_store %3, %5, %4, %4
  tt.return
}
