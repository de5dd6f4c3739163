// Division, remainder and shifts of arange(0, 128) by constants. By hand:
// arange % 32 restarts every 32: contiguity gcd(128, gcd(2^30, 32)) = 32, run starts 0 mod 32.
// arange / 32 is constant over 32 ([0]*32, [1]*32, ...): constancy 32, divisibility 1.
// arange >> 2 is constant over 4; arange << 2 is 0, 4, 8, ...: every element divisible by 4.
// arange * 1 keeps the range; 12 - arange decreases: no contiguity. Constants fold.
tt.func public @int_arith() {
  %0 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  %1 = arith.constant {value = 32} : tensor<128xi32>
  %2 = arith.remsi %0, %1 : tensor<128xi32>
  %3 = arith.divsi %0, %1 : tensor<128xi32>
  %4 = arith.constant {value = 2} : tensor<128xi32>
  %5 = arith.shrsi %0, %4 : tensor<128xi32>
  %6 = arith.shli %0, %4 : tensor<128xi32>
  %7 = arith.constant {value = 1} : tensor<128xi32>
  %8 = arith.muli %0, %7 : tensor<128xi32>
  %9 = arith.constant {value = 12} : tensor<128xi32>
  %10 = arith.subi %9, %0 : tensor<128xi32>
  %11 = arith.subi %0, %9 : tensor<128xi32>
  %12 = arith.muli %9, %4 : tensor<128xi32>
  %13 = arith.addi %0, %0 : tensor<128xi32>
  %14 = arith.andi %6, %9 : tensor<128xi32>
  tt.return
}
// ----- expected
tt.func public @int_arith() {
  %0 = tt.make_range {start = 0, end = 128} : tensor<128xi32>
  // %0: contiguity = [128], divisibility = [1073741824], constancy = [1]
  %1 = arith.constant {value = 32} : tensor<128xi32>
  // %1: contiguity = [1], divisibility = [32], constancy = [128], constant = 32
  %2 = arith.remsi %0, %1 : tensor<128xi32>
  // %2: contiguity = [32], divisibility = [32], constancy = [1]
  %3 = arith.divsi %0, %1 : tensor<128xi32>
  // %3: contiguity = [1], divisibility = [1], constancy = [32]
  %4 = arith.constant {value = 2} : tensor<128xi32>
  // %4: contiguity = [1], divisibility = [2], constancy = [128], constant = 2
  %5 = arith.shrsi %0, %4 : tensor<128xi32>
  // %5: contiguity = [1], divisibility = [1], constancy = [4]
  %6 = arith.shli %0, %4 : tensor<128xi32>
  // %6: contiguity = [1], divisibility = [4], constancy = [1]
  %7 = arith.constant {value = 1} : tensor<128xi32>
  // %7: contiguity = [1], divisibility = [1], constancy = [128], constant = 1
  %8 = arith.muli %0, %7 : tensor<128xi32>
  // %8: contiguity = [128], divisibility = [1073741824], constancy = [1]
  %9 = arith.constant {value = 12} : tensor<128xi32>
  // %9: contiguity = [1], divisibility = [4], constancy = [128], constant = 12
  %10 = arith.subi %9, %0 : tensor<128xi32>
  // %10: contiguity = [1], divisibility = [1], constancy = [1]
  %11 = arith.subi %0, %9 : tensor<128xi32>
  // %11: contiguity = [128], divisibility = [4], constancy = [1]
  %12 = arith.muli %9, %4 : tensor<128xi32>
  // %12: contiguity = [1], divisibility = [8], constancy = [128], constant = 24
  %13 = arith.addi %0, %0 : tensor<128xi32>
  // %13: contiguity = [1], divisibility = [1], constancy = [1]
  %14 = arith.andi %6, %9 : tensor<128xi32>
  // %14: contiguity = [1], divisibility = [4], constancy = [1]
  tt.return
}
