// A row stride not known to be a multiple of 16 bytes (no divisibility on %C), NaN padding, or a
// 1-byte element type: the tensor map cannot be encoded, so the accesses become masked pointer
// loads and stores.
tt.func public @kernel(%x: !tt.ptr<f32> {tt.divisibility = 16}, %y: !tt.ptr<f32> {tt.divisibility = 16}, %b: !tt.ptr<i8> {tt.divisibility = 16}, %R: i32, %C: i32) {
  %c = arith.extsi %C : i64
  %one = arith.constant {value = 1} : i64
  %c64 = arith.constant {value = 64} : i64
  %i64 = arith.constant {value = 64} : i32
  %dx = tt.make_tensor_descriptor %x, %R, %C, %c, %one {padding = "zero"} : !tt.tensordesc<tensor<2x4xf32>>
  %dn = tt.make_tensor_descriptor %y, %R, %i64, %c64, %one {padding = "nan"} : !tt.tensordesc<tensor<2x4xf32>>
  %db = tt.make_tensor_descriptor %b, %R, %i64, %c64, %one {padding = "zero"} : !tt.tensordesc<tensor<2x16xi8>>
  %zero = arith.constant {value = 0} : i32
  %v = tt.descriptor_load %dx, %zero, %zero : tensor<2x4xf32>
  %n = tt.descriptor_load %dn, %zero, %zero : tensor<2x4xf32>
  %w = arith.addf %v, %n : tensor<2x4xf32>
  tt.descriptor_store %dx, %w, %zero, %zero
  %bytes = tt.descriptor_load %db, %zero, %zero : tensor<2x16xi8>
  tt.descriptor_store %db, %bytes, %zero, %zero
  tt.return
}
// ----- expected
tt.func public @kernel(%x: !tt.ptr<f32> {tt.divisibility = 16}, %y: !tt.ptr<f32> {tt.divisibility = 16}, %b: !tt.ptr<i8> {tt.divisibility = 16}, %R: i32, %C: i32) {
  %0 = arith.extsi %C : i64
  %1 = arith.constant {value = 1} : i64
  %2 = arith.constant {value = 64} : i64
  %3 = arith.constant {value = 64} : i32
  %4 = arith.constant {value = 0} : i32
  %5 = tt.make_range {start = 0, end = 2} : tensor<2xi32>
  %6 = tt.splat %4 : tensor<2xi32>
  %7 = arith.addi %6, %5 : tensor<2xi32>
  %8 = tt.expand_dims %7 {axis = 1} : tensor<2x1xi32>
  %9 = arith.extsi %8 : tensor<2x1xi64>
  %10 = tt.splat %0 : tensor<2x1xi64>
  %11 = arith.muli %9, %10 : tensor<2x1xi64>
  %12 = tt.broadcast %11 : tensor<2x4xi64>
  %13 = arith.constant {value = 0} : tensor<2x1xi32>
  %14 = tt.splat %R : tensor<2x1xi32>
  %15 = arith.cmpi %8, %13 {predicate = "sge"} : tensor<2x1xi1>
  %16 = arith.cmpi %8, %14 {predicate = "slt"} : tensor<2x1xi1>
  %17 = arith.andi %15, %16 : tensor<2x1xi1>
  %18 = tt.broadcast %17 : tensor<2x4xi1>
  %19 = tt.make_range {start = 0, end = 4} : tensor<4xi32>
  %20 = tt.splat %4 : tensor<4xi32>
  %21 = arith.addi %20, %19 : tensor<4xi32>
  %22 = tt.expand_dims %21 {axis = 0} : tensor<1x4xi32>
  %23 = arith.extsi %22 : tensor<1x4xi64>
  %24 = tt.splat %1 : tensor<1x4xi64>
  %25 = arith.muli %23, %24 : tensor<1x4xi64>
  %26 = tt.broadcast %25 : tensor<2x4xi64>
  %27 = arith.addi %12, %26 : tensor<2x4xi64>
  %28 = arith.constant {value = 0} : tensor<1x4xi32>
  %29 = tt.splat %C : tensor<1x4xi32>
  %30 = arith.cmpi %22, %28 {predicate = "sge"} : tensor<1x4xi1>
  %31 = arith.cmpi %22, %29 {predicate = "slt"} : tensor<1x4xi1>
  %32 = arith.andi %30, %31 : tensor<1x4xi1>
  %33 = tt.broadcast %32 : tensor<2x4xi1>
  %34 = arith.andi %18, %33 : tensor<2x4xi1>
  %35 = tt.splat %x : tensor<2x4x!tt.ptr<f32>>
  %36 = tt.addptr %35, %27 : tensor<2x4x!tt.ptr<f32>>
  %37 = arith.constant {value = 0.0} : tensor<2x4xf32>
  %38 = tt.load %36, %34, %37 : tensor<2x4xf32>
  %39 = tt.make_range {start = 0, end = 2} : tensor<2xi32>
  %40 = tt.splat %4 : tensor<2xi32>
  %41 = arith.addi %40, %39 : tensor<2xi32>
  %42 = tt.expand_dims %41 {axis = 1} : tensor<2x1xi32>
  %43 = arith.extsi %42 : tensor<2x1xi64>
  %44 = tt.splat %2 : tensor<2x1xi64>
  %45 = arith.muli %43, %44 : tensor<2x1xi64>
  %46 = tt.broadcast %45 : tensor<2x4xi64>
  %47 = arith.constant {value = 0} : tensor<2x1xi32>
  %48 = tt.splat %R : tensor<2x1xi32>
  %49 = arith.cmpi %42, %47 {predicate = "sge"} : tensor<2x1xi1>
  %50 = arith.cmpi %42, %48 {predicate = "slt"} : tensor<2x1xi1>
  %51 = arith.andi %49, %50 : tensor<2x1xi1>
  %52 = tt.broadcast %51 : tensor<2x4xi1>
  %53 = tt.make_range {start = 0, end = 4} : tensor<4xi32>
  %54 = tt.splat %4 : tensor<4xi32>
  %55 = arith.addi %54, %53 : tensor<4xi32>
  %56 = tt.expand_dims %55 {axis = 0} : tensor<1x4xi32>
  %57 = arith.extsi %56 : tensor<1x4xi64>
  %58 = tt.splat %1 : tensor<1x4xi64>
  %59 = arith.muli %57, %58 : tensor<1x4xi64>
  %60 = tt.broadcast %59 : tensor<2x4xi64>
  %61 = arith.addi %46, %60 : tensor<2x4xi64>
  %62 = arith.constant {value = 0} : tensor<1x4xi32>
  %63 = tt.splat %3 : tensor<1x4xi32>
  %64 = arith.cmpi %56, %62 {predicate = "sge"} : tensor<1x4xi1>
  %65 = arith.cmpi %56, %63 {predicate = "slt"} : tensor<1x4xi1>
  %66 = arith.andi %64, %65 : tensor<1x4xi1>
  %67 = tt.broadcast %66 : tensor<2x4xi1>
  %68 = arith.andi %52, %67 : tensor<2x4xi1>
  %69 = tt.splat %y : tensor<2x4x!tt.ptr<f32>>
  %70 = tt.addptr %69, %61 : tensor<2x4x!tt.ptr<f32>>
  %71 = arith.constant {value = nan} : tensor<2x4xf32>
  %72 = tt.load %70, %68, %71 : tensor<2x4xf32>
  %73 = arith.addf %38, %72 : tensor<2x4xf32>
  %74 = tt.make_range {start = 0, end = 2} : tensor<2xi32>
  %75 = tt.splat %4 : tensor<2xi32>
  %76 = arith.addi %75, %74 : tensor<2xi32>
  %77 = tt.expand_dims %76 {axis = 1} : tensor<2x1xi32>
  %78 = arith.extsi %77 : tensor<2x1xi64>
  %79 = tt.splat %0 : tensor<2x1xi64>
  %80 = arith.muli %78, %79 : tensor<2x1xi64>
  %81 = tt.broadcast %80 : tensor<2x4xi64>
  %82 = arith.constant {value = 0} : tensor<2x1xi32>
  %83 = tt.splat %R : tensor<2x1xi32>
  %84 = arith.cmpi %77, %82 {predicate = "sge"} : tensor<2x1xi1>
  %85 = arith.cmpi %77, %83 {predicate = "slt"} : tensor<2x1xi1>
  %86 = arith.andi %84, %85 : tensor<2x1xi1>
  %87 = tt.broadcast %86 : tensor<2x4xi1>
  %88 = tt.make_range {start = 0, end = 4} : tensor<4xi32>
  %89 = tt.splat %4 : tensor<4xi32>
  %90 = arith.addi %89, %88 : tensor<4xi32>
  %91 = tt.expand_dims %90 {axis = 0} : tensor<1x4xi32>
  %92 = arith.extsi %91 : tensor<1x4xi64>
  %93 = tt.splat %1 : tensor<1x4xi64>
  %94 = arith.muli %92, %93 : tensor<1x4xi64>
  %95 = tt.broadcast %94 : tensor<2x4xi64>
  %96 = arith.addi %81, %95 : tensor<2x4xi64>
  %97 = arith.constant {value = 0} : tensor<1x4xi32>
  %98 = tt.splat %C : tensor<1x4xi32>
  %99 = arith.cmpi %91, %97 {predicate = "sge"} : tensor<1x4xi1>
  %100 = arith.cmpi %91, %98 {predicate = "slt"} : tensor<1x4xi1>
  %101 = arith.andi %99, %100 : tensor<1x4xi1>
  %102 = tt.broadcast %101 : tensor<2x4xi1>
  %103 = arith.andi %87, %102 : tensor<2x4xi1>
  %104 = tt.splat %x : tensor<2x4x!tt.ptr<f32>>
  %105 = tt.addptr %104, %96 : tensor<2x4x!tt.ptr<f32>>
  tt.store %105, %73, %103
  %106 = tt.make_range {start = 0, end = 2} : tensor<2xi32>
  %107 = tt.splat %4 : tensor<2xi32>
  %108 = arith.addi %107, %106 : tensor<2xi32>
  %109 = tt.expand_dims %108 {axis = 1} : tensor<2x1xi32>
  %110 = arith.extsi %109 : tensor<2x1xi64>
  %111 = tt.splat %2 : tensor<2x1xi64>
  %112 = arith.muli %110, %111 : tensor<2x1xi64>
  %113 = tt.broadcast %112 : tensor<2x16xi64>
  %114 = arith.constant {value = 0} : tensor<2x1xi32>
  %115 = tt.splat %R : tensor<2x1xi32>
  %116 = arith.cmpi %109, %114 {predicate = "sge"} : tensor<2x1xi1>
  %117 = arith.cmpi %109, %115 {predicate = "slt"} : tensor<2x1xi1>
  %118 = arith.andi %116, %117 : tensor<2x1xi1>
  %119 = tt.broadcast %118 : tensor<2x16xi1>
  %120 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
  %121 = tt.splat %4 : tensor<16xi32>
  %122 = arith.addi %121, %120 : tensor<16xi32>
  %123 = tt.expand_dims %122 {axis = 0} : tensor<1x16xi32>
  %124 = arith.extsi %123 : tensor<1x16xi64>
  %125 = tt.splat %1 : tensor<1x16xi64>
  %126 = arith.muli %124, %125 : tensor<1x16xi64>
  %127 = tt.broadcast %126 : tensor<2x16xi64>
  %128 = arith.addi %113, %127 : tensor<2x16xi64>
  %129 = arith.constant {value = 0} : tensor<1x16xi32>
  %130 = tt.splat %3 : tensor<1x16xi32>
  %131 = arith.cmpi %123, %129 {predicate = "sge"} : tensor<1x16xi1>
  %132 = arith.cmpi %123, %130 {predicate = "slt"} : tensor<1x16xi1>
  %133 = arith.andi %131, %132 : tensor<1x16xi1>
  %134 = tt.broadcast %133 : tensor<2x16xi1>
  %135 = arith.andi %119, %134 : tensor<2x16xi1>
  %136 = tt.splat %b : tensor<2x16x!tt.ptr<i8>>
  %137 = tt.addptr %136, %128 : tensor<2x16x!tt.ptr<i8>>
  %138 = arith.constant {value = 0} : tensor<2x16xi8>
  %139 = tt.load %137, %135, %138 : tensor<2x16xi8>
  %140 = tt.make_range {start = 0, end = 2} : tensor<2xi32>
  %141 = tt.splat %4 : tensor<2xi32>
  %142 = arith.addi %141, %140 : tensor<2xi32>
  %143 = tt.expand_dims %142 {axis = 1} : tensor<2x1xi32>
  %144 = arith.extsi %143 : tensor<2x1xi64>
  %145 = tt.splat %2 : tensor<2x1xi64>
  %146 = arith.muli %144, %145 : tensor<2x1xi64>
  %147 = tt.broadcast %146 : tensor<2x16xi64>
  %148 = arith.constant {value = 0} : tensor<2x1xi32>
  %149 = tt.splat %R : tensor<2x1xi32>
  %150 = arith.cmpi %143, %148 {predicate = "sge"} : tensor<2x1xi1>
  %151 = arith.cmpi %143, %149 {predicate = "slt"} : tensor<2x1xi1>
  %152 = arith.andi %150, %151 : tensor<2x1xi1>
  %153 = tt.broadcast %152 : tensor<2x16xi1>
  %154 = tt.make_range {start = 0, end = 16} : tensor<16xi32>
  %155 = tt.splat %4 : tensor<16xi32>
  %156 = arith.addi %155, %154 : tensor<16xi32>
  %157 = tt.expand_dims %156 {axis = 0} : tensor<1x16xi32>
  %158 = arith.extsi %157 : tensor<1x16xi64>
  %159 = tt.splat %1 : tensor<1x16xi64>
  %160 = arith.muli %158, %159 : tensor<1x16xi64>
  %161 = tt.broadcast %160 : tensor<2x16xi64>
  %162 = arith.addi %147, %161 : tensor<2x16xi64>
  %163 = arith.constant {value = 0} : tensor<1x16xi32>
  %164 = tt.splat %3 : tensor<1x16xi32>
  %165 = arith.cmpi %157, %163 {predicate = "sge"} : tensor<1x16xi1>
  %166 = arith.cmpi %157, %164 {predicate = "slt"} : tensor<1x16xi1>
  %167 = arith.andi %165, %166 : tensor<1x16xi1>
  %168 = tt.broadcast %167 : tensor<2x16xi1>
  %169 = arith.andi %153, %168 : tensor<2x16xi1>
  %170 = tt.splat %b : tensor<2x16x!tt.ptr<i8>>
  %171 = tt.addptr %170, %162 : tensor<2x16x!tt.ptr<i8>>
  tt.store %171, %139, %169
  tt.return
}
