// A call without results (a helper that only stores) is inlined at its position.
tt.func public @kernel(%p: !tt.ptr<i32>, %v: i32) {
  tt.call %p, %v {callee = "store_twice"}
  %one = arith.constant {value = 1} : i32
  %0 = arith.addi %v, %one : i32
  tt.call %p, %0 {callee = "store_twice"}
  tt.return
}

tt.func private @store_twice(%ptr: !tt.ptr<i32>, %value: i32) {
  tt.store %ptr, %value
  tt.store %ptr, %value
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<i32>, %v: i32) {
  tt.store %p, %v
  tt.store %p, %v
  %0 = arith.constant {value = 1} : i32
  %1 = arith.addi %v, %0 : i32
  tt.store %p, %1
  tt.store %p, %1
  tt.return
}
