// Causal attention's shape: the first loop runs m * 128 / 64 times for query block m =
// program_id(0), the second a constant number of times. The program ids of axes 0 and 1 become
// the renumbering of the launch position (longest first, 16 heads side by side); axis 2 stays.
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32) {
  %c0 = arith.constant {value = 0} : i32
  %c1 = arith.constant {value = 1} : i32
  %c64 = arith.constant {value = 64} : i32
  %c128 = arith.constant {value = 128} : i32
  %m = tt.get_program_id {axis = 0} : i32
  %head = tt.get_program_id {axis = 1} : i32
  %z = tt.get_program_id {axis = 2} : i32
  %lo = arith.muli %m, %c128 : i32
  %next = arith.addi %m, %c1 : i32
  %hi = arith.muli %next, %c128 : i32
  %init = arith.constant {value = 0.0} : f32
  %a = scf.for %c0, %lo, %c64, %init : f32 {
  ^bb0(%i: i32, %acc: f32):
    %one = arith.constant {value = 1.0} : f32
    %s = arith.addf %acc, %one : f32
    scf.yield %s
  }
  %b = scf.for %lo, %hi, %c64, %a : f32 {
  ^bb0(%j: i32, %acc2: f32):
    %two = arith.constant {value = 2.0} : f32
    %t = arith.addf %acc2, %two : f32
    scf.yield %t
  }
  %row = arith.muli %head, %n : i32
  %col = arith.addi %row, %m : i32
  %off = arith.addi %col, %z : i32
  %q = tt.addptr %p, %off : !tt.ptr<f32>
  tt.store %q, %b
  tt.return
}
// ----- expected
tt.func public @kernel(%p: !tt.ptr<f32>, %n: i32) {
  %0 = tt.get_program_id {axis = 0} : i32
  %1 = arith.extsi %0 : i64
  %2 = tt.get_program_id {axis = 1} : i32
  %3 = arith.extsi %2 : i64
  %4 = tt.get_num_programs {axis = 0} : i32
  %5 = arith.extsi %4 : i64
  %6 = tt.get_num_programs {axis = 1} : i32
  %7 = arith.extsi %6 : i64
  %8 = arith.constant {value = 16} : i64
  %9 = arith.constant {value = 1} : i64
  %10 = arith.muli %3, %5 : i64
  %11 = arith.addi %1, %10 : i64
  %12 = arith.muli %8, %5 : i64
  %13 = arith.divsi %11, %12 : i64
  %14 = arith.muli %13, %8 : i64
  %15 = arith.subi %7, %14 : i64
  %16 = arith.minsi %8, %15 : i64
  %17 = arith.muli %13, %12 : i64
  %18 = arith.subi %11, %17 : i64
  %19 = arith.divsi %18, %16 : i64
  %20 = arith.subi %5, %9 : i64
  %21 = arith.subi %20, %19 : i64
  %22 = arith.remsi %18, %16 : i64
  %23 = arith.addi %14, %22 : i64
  %24 = arith.trunci %21 : i32
  %25 = arith.trunci %23 : i32
  %26 = arith.constant {value = 0} : i32
  %27 = arith.constant {value = 1} : i32
  %28 = arith.constant {value = 64} : i32
  %29 = arith.constant {value = 128} : i32
  %30 = tt.get_program_id {axis = 2} : i32
  %31 = arith.muli %24, %29 : i32
  %32 = arith.addi %24, %27 : i32
  %33 = arith.muli %32, %29 : i32
  %34 = arith.constant {value = 0.0} : f32
  %35 = scf.for %26, %31, %28, %34 : f32 {
  ^bb0(%36: i32, %37: f32):
    %38 = arith.constant {value = 1.0} : f32
    %39 = arith.addf %37, %38 : f32
    scf.yield %39
  }
  %40 = scf.for %31, %33, %28, %35 : f32 {
  ^bb0(%41: i32, %42: f32):
    %43 = arith.constant {value = 2.0} : f32
    %44 = arith.addf %42, %43 : f32
    scf.yield %44
  }
  %45 = arith.muli %25, %n : i32
  %46 = arith.addi %45, %24 : i32
  %47 = arith.addi %46, %30 : i32
  %48 = tt.addptr %p, %47 : !tt.ptr<f32>
  tt.store %48, %40
  tt.return
}
