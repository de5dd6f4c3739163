// add(dot(a, b, 0), c) becomes dot(a, b, c), in either operand order, for float and integer
// dots. A dot with a second use, or with a nonzero accumulator, stays as it is.
tt.func private @dots(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>, %ia: tensor<16x16xi8>, %ib: tensor<16x16xi8>, %ic: tensor<16x16xi32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xi32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %zero = arith.constant {value = 0.0} : tensor<16x16xf32>
  %izero = arith.constant {value = 0} : tensor<16x16xi32>
  %0 = tt.dot %a, %b, %zero {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<16x16xf32>
  %1 = arith.addf %0, %c : tensor<16x16xf32>
  %2 = tt.dot %a, %b, %zero {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<16x16xf32>
  %3 = arith.addf %c, %2 : tensor<16x16xf32>
  %4 = tt.dot %ia, %ib, %izero : tensor<16x16xi32>
  %5 = arith.addi %ic, %4 : tensor<16x16xi32>
  %6 = tt.dot %a, %b, %zero : tensor<16x16xf32>
  %7 = arith.addf %6, %c : tensor<16x16xf32>
  %8 = tt.dot %a, %b, %c : tensor<16x16xf32>
  %9 = arith.addf %8, %c : tensor<16x16xf32>
  tt.return %1, %3, %5, %7, %6, %9
}
// ----- expected
tt.func private @dots(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>, %ia: tensor<16x16xi8>, %ib: tensor<16x16xi8>, %ic: tensor<16x16xi32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xi32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %0 = arith.constant {value = 0.0} : tensor<16x16xf32>
  %1 = arith.constant {value = 0} : tensor<16x16xi32>
  %2 = tt.dot %a, %b, %c {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<16x16xf32>
  %3 = tt.dot %a, %b, %c {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<16x16xf32>
  %4 = tt.dot %ia, %ib, %ic : tensor<16x16xi32>
  %5 = tt.dot %a, %b, %0 : tensor<16x16xf32>
  %6 = arith.addf %5, %c : tensor<16x16xf32>
  %7 = tt.dot %a, %b, %c : tensor<16x16xf32>
  %8 = arith.addf %7, %c : tensor<16x16xf32>
  tt.return %2, %3, %4, %6, %5, %8
}
