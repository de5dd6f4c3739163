// Helpers calling helpers are inlined recursively; the returned values replace the call's
// results, and every helper disappears from the module.
tt.func public @kernel(%p: !tt.ptr<f32>, %x: f32) {
  %0 = tt.call %x, %x {callee = "add_then_square"} : f32
  %1 = tt.call %0, %x {callee = "add_then_square"} : f32
  tt.store %p, %1
  tt.return
}

tt.func private @add_then_square(%a: f32, %b: f32) -> (f32) {
  %0 = arith.addf %a, %b : f32
  %1 = tt.call %0 {callee = "square"} : f32
  tt.return %1
}

tt.func private @square(%v: f32) -> (f32) {
  %0 = arith.mulf %v, %v : f32
  tt.return %0
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>, %x: f32) {
  %0 = arith.addf %x, %x : f32
  %1 = arith.mulf %0, %0 : f32
  %2 = arith.addf %1, %x : f32
  %3 = arith.mulf %2, %2 : f32
  tt.store %p, %3
  tt.return
}
