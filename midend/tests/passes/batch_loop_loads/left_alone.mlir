// Loops this pass leaves as they are: three loads per iteration (one trip could batch only one
// iteration), 64 bytes a thread per load (two would hold 128, over the 64 a trip may), an atomic
// in the body, a store in the body (a later load may read what it wrote, so no load could move
// above it), and a loop known to run once.
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#wide = #ttg.blocked<{sizePerThread = [16], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
tt.func public @kernel(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32, %s: f32) {
  %zero = arith.constant {value = 0} : i32
  %block = arith.constant {value = 512} : i32
  %range = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %xs = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %init = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %three = scf.for %zero, %n, %block, %init : tensor<512xf32, #blocked> {
  ^bb0(%i: i32, %acc: tensor<512xf32, #blocked>):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %a = tt.load %p : tensor<512xf32, #blocked>
    %b = tt.load %p : tensor<512xf32, #blocked>
    %c = tt.load %p : tensor<512xf32, #blocked>
    %ab = arith.addf %a, %b : tensor<512xf32, #blocked>
    %abc = arith.addf %ab, %c : tensor<512xf32, #blocked>
    %next = arith.addf %acc, %abc : tensor<512xf32, #blocked>
    scf.yield %next
  }
  %wrange = tt.make_range {start = 0, end = 2048} : tensor<2048xi32, #wide>
  %wxs = tt.splat %x : tensor<2048x!tt.ptr<f32>, #wide>
  %winit = arith.constant {value = 0.0} : tensor<2048xf32, #wide>
  %wide_sum = scf.for %zero, %n, %block, %winit : tensor<2048xf32, #wide> {
  ^bb0(%i: i32, %acc: tensor<2048xf32, #wide>):
    %first = tt.splat %i : tensor<2048xi32, #wide>
    %cols = arith.addi %first, %wrange : tensor<2048xi32, #wide>
    %p = tt.addptr %wxs, %cols : tensor<2048x!tt.ptr<f32>, #wide>
    %v = tt.load %p : tensor<2048xf32, #wide>
    %next = arith.addf %acc, %v : tensor<2048xf32, #wide>
    scf.yield %next
  }
  scf.for %zero, %n, %block {
  ^bb0(%i: i32):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p : tensor<512xf32, #blocked>
    %old = tt.atomic_rmw %p, %v {atomic_rmw_op = "fadd", sem = "relaxed", scope = "gpu"} : tensor<512xf32, #blocked>
    scf.yield
  }
  %once = scf.for %zero, %block, %block, %init : tensor<512xf32, #blocked> {
  ^bb0(%i: i32, %acc: tensor<512xf32, #blocked>):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p : tensor<512xf32, #blocked>
    %next = arith.addf %acc, %v : tensor<512xf32, #blocked>
    scf.yield %next
  }
  %ys = tt.splat %y : tensor<512x!tt.ptr<f32>, #blocked>
  %factor = tt.splat %s : tensor<512xf32, #blocked>
  scf.for %zero, %n, %block {
  ^bb0(%i: i32):
    %first = tt.splat %i : tensor<512xi32, #blocked>
    %cols = arith.addi %first, %range : tensor<512xi32, #blocked>
    %p = tt.addptr %xs, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    %v = tt.load %p : tensor<512xf32, #blocked>
    %scaled = arith.mulf %v, %factor : tensor<512xf32, #blocked>
    %q = tt.addptr %ys, %cols : tensor<512x!tt.ptr<f32>, #blocked>
    tt.store %q, %scaled
    scf.yield
  }
  %s1 = arith.addf %three, %once : tensor<512xf32, #blocked>
  tt.store %xs, %s1
  %s2 = tt.addptr %wxs, %wrange : tensor<2048x!tt.ptr<f32>, #wide>
  tt.store %s2, %wide_sum
  tt.return
}
// ----- expected
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [16], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

tt.func public @kernel(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32, %s: f32) {
  %0 = arith.constant {value = 0} : i32
  %1 = arith.constant {value = 512} : i32
  %2 = tt.make_range {start = 0, end = 512} : tensor<512xi32, #blocked>
  %3 = tt.splat %x : tensor<512x!tt.ptr<f32>, #blocked>
  %4 = arith.constant {value = 0.0} : tensor<512xf32, #blocked>
  %5 = scf.for %0, %n, %1, %4 : tensor<512xf32, #blocked> {
  ^bb0(%6: i32, %7: tensor<512xf32, #blocked>):
    %8 = tt.splat %6 : tensor<512xi32, #blocked>
    %9 = arith.addi %8, %2 : tensor<512xi32, #blocked>
    %10 = tt.addptr %3, %9 : tensor<512x!tt.ptr<f32>, #blocked>
    %11 = tt.load %10 : tensor<512xf32, #blocked>
    %12 = tt.load %10 : tensor<512xf32, #blocked>
    %13 = tt.load %10 : tensor<512xf32, #blocked>
    %14 = arith.addf %11, %12 : tensor<512xf32, #blocked>
    %15 = arith.addf %14, %13 : tensor<512xf32, #blocked>
    %16 = arith.addf %7, %15 : tensor<512xf32, #blocked>
    scf.yield %16
  }
  %17 = tt.make_range {start = 0, end = 2048} : tensor<2048xi32, #blocked1>
  %18 = tt.splat %x : tensor<2048x!tt.ptr<f32>, #blocked1>
  %19 = arith.constant {value = 0.0} : tensor<2048xf32, #blocked1>
  %20 = scf.for %0, %n, %1, %19 : tensor<2048xf32, #blocked1> {
  ^bb0(%21: i32, %22: tensor<2048xf32, #blocked1>):
    %23 = tt.splat %21 : tensor<2048xi32, #blocked1>
    %24 = arith.addi %23, %17 : tensor<2048xi32, #blocked1>
    %25 = tt.addptr %18, %24 : tensor<2048x!tt.ptr<f32>, #blocked1>
    %26 = tt.load %25 : tensor<2048xf32, #blocked1>
    %27 = arith.addf %22, %26 : tensor<2048xf32, #blocked1>
    scf.yield %27
  }
  scf.for %0, %n, %1 {
  ^bb0(%28: i32):
    %29 = tt.splat %28 : tensor<512xi32, #blocked>
    %30 = arith.addi %29, %2 : tensor<512xi32, #blocked>
    %31 = tt.addptr %3, %30 : tensor<512x!tt.ptr<f32>, #blocked>
    %32 = tt.load %31 : tensor<512xf32, #blocked>
    %33 = tt.atomic_rmw %31, %32 {atomic_rmw_op = "fadd", sem = "relaxed", scope = "gpu"} : tensor<512xf32, #blocked>
    scf.yield
  }
  %34 = scf.for %0, %1, %1, %4 : tensor<512xf32, #blocked> {
  ^bb0(%35: i32, %36: tensor<512xf32, #blocked>):
    %37 = tt.splat %35 : tensor<512xi32, #blocked>
    %38 = arith.addi %37, %2 : tensor<512xi32, #blocked>
    %39 = tt.addptr %3, %38 : tensor<512x!tt.ptr<f32>, #blocked>
    %40 = tt.load %39 : tensor<512xf32, #blocked>
    %41 = arith.addf %36, %40 : tensor<512xf32, #blocked>
    scf.yield %41
  }
  %42 = tt.splat %y : tensor<512x!tt.ptr<f32>, #blocked>
  %43 = tt.splat %s : tensor<512xf32, #blocked>
  scf.for %0, %n, %1 {
  ^bb0(%44: i32):
    %45 = tt.splat %44 : tensor<512xi32, #blocked>
    %46 = arith.addi %45, %2 : tensor<512xi32, #blocked>
    %47 = tt.addptr %3, %46 : tensor<512x!tt.ptr<f32>, #blocked>
    %48 = tt.load %47 : tensor<512xf32, #blocked>
    %49 = arith.mulf %48, %43 : tensor<512xf32, #blocked>
    %50 = tt.addptr %42, %46 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.store %50, %49
    scf.yield
  }
  %51 = arith.addf %5, %34 : tensor<512xf32, #blocked>
  tt.store %3, %51
  %52 = tt.addptr %18, %17 : tensor<2048x!tt.ptr<f32>, #blocked1>
  tt.store %52, %20
  tt.return
}
