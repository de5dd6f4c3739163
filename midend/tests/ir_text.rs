//! Tests of the IR's text form and verifier: round trips (parse, print gives the input back),
//! parse errors with their line:column, and verifier errors, all through one `check` helper that
//! renders the outcome of parsing and verifying a text as a string (STYLE rule 18).

use trident_midend::ir::parser::parse_module;
use trident_midend::ir::verifier::verify_module;
use trident_midend::ir::{
    print_module, print_module_with, Attr, Attrs, Builder, DType, FuncKind, Function, Module, Opcode,
    PrintOptions, SourceFile, Span, Type,
};

/// Parses and verifies `input`, and says what happened: the printed module when both succeed
/// (so a round trip is `check(x) == x`), else `parse error: LINE:COL: ...` or
/// `verify error: in @f: ...`.
fn check(input: &str) -> String {
    let module = match parse_module(input) {
        Ok(module) => module,
        Err(e) => return format!("parse error: {e}"),
    };
    if let Err(e) = verify_module(&module) {
        return format!("verify error: {e}");
    }
    let printed = print_module(&module);
    // The printed form must itself read back to the same text.
    let reparsed = parse_module(&printed).map(|m| print_module(&m));
    assert_eq!(reparsed.as_deref(), Ok(printed.as_str()), "the printed form does not round-trip");
    printed
}

/// Verifies a module built in memory and prints the error, or "ok".
fn verify_built(module: &Module) -> String {
    match verify_module(module) {
        Ok(()) => "ok".to_string(),
        Err(e) => e.to_string(),
    }
}

// ---- round trips ---------------------------------------------------------------------------------

/// A vector add with a tensor of pointers, masks, an `other` value and a loop with iter args.
const ADD_KERNEL: &str = r#"module attributes {ttg.num-warps = 4, ttg.threads-per-warp = 32}
tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %y_ptr: !tt.ptr<f32> {tt.divisibility = 16}, %out_ptr: !tt.ptr<f32>, %n: i32) {
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
  %10 = arith.constant {value = 0.0} : tensor<1024xf32>
  %11 = tt.load %9, %7, %10 {cache = "", evict = "evict_last", volatile = false} : tensor<1024xf32>
  %12 = tt.splat %y_ptr : tensor<1024x!tt.ptr<f32>>
  %13 = tt.addptr %12, %5 : tensor<1024x!tt.ptr<f32>>
  %14 = tt.load %13, %7 : tensor<1024xf32>
  %15 = arith.constant {value = 0} : i32
  %16 = arith.constant {value = 4} : i32
  %17 = arith.constant {value = 1} : i32
  %18 = scf.for %15, %16, %17, %11 : tensor<1024xf32> {
  ^bb0(%19: i32, %20: tensor<1024xf32>):
    %21 = arith.addf %20, %14 : tensor<1024xf32>
    scf.yield %21
  }
  %22 = tt.splat %out_ptr : tensor<1024x!tt.ptr<f32>>
  %23 = tt.addptr %22, %5 : tensor<1024x!tt.ptr<f32>>
  tt.store %23, %18, %7
  tt.return
}
"#;

/// Calls with two results, scf.if with results and an else, scf.while, an if without results
/// whose else is empty, and string escapes.
const CONTROL_FLOW: &str = r#"tt.func private @helper(%a: f32, %b: f32) -> (f32, f32) {
  %0 = arith.addf %a, %b : f32
  %1 = arith.mulf %a, %b : f32
  tt.return %0, %1
}

tt.func public @control(%n: i32, %flag: i1) -> (f32) {
  %0 = arith.constant {value = nan} : f32
  %1 = arith.constant {value = inf} : f32
  %2 = arith.constant {value = -inf} : f32
  %3 = arith.constant {value = 1e-8} : f32
  %4 = arith.constant {value = -0.0} : f32
  %5 = arith.constant {value = 2.5} : f64
  %6 = arith.constant {value = -7} : i64
  %7 = arith.constant {value = true} : i1
  %8, %9 = tt.call %0, %1 {callee = "helper"} : f32, f32
  %10 = scf.if %flag : f32 {
    %11 = arith.addf %8, %3 : f32
    scf.yield %11
  } else {
    scf.yield %9
  }
  %12 = scf.while %n : i32 {
  ^bb0(%13: i32):
    %14 = arith.constant {value = 0} : i32
    %15 = arith.cmpi %13, %14 {predicate = "sgt"} : i1
    scf.condition %15, %13
  } do {
  ^bb0(%16: i32):
    %17 = arith.constant {value = 1} : i32
    %18 = arith.subi %16, %17 : i32
    scf.yield %18
  }
  scf.if %7 {
    tt.print %12, %2, %4, %5, %6 {prefix = "say \"hi\"\n\\ \t\u{1b}é", hex = false}
  } else {
  }
  tt.return %10
}
"#;

/// Shape ops, dot, reduce and scan with combine regions, split/join, descriptors.
const TENSOR_OPS: &str = r#"tt.func public @tensors(%p: !tt.ptr<f16>, %n: i32) {
  %0 = tt.make_range {start = 0, end = 64} : tensor<64xi32>
  %1 = tt.expand_dims %0 {axis = 1} : tensor<64x1xi32>
  %2 = tt.broadcast %1 : tensor<64x64xi32>
  %3 = tt.trans %2 {order = [1, 0]} : tensor<64x64xi32>
  %4 = tt.splat %p : tensor<64x64x!tt.ptr<f16>>
  %5 = tt.addptr %4, %3 : tensor<64x64x!tt.ptr<f16>>
  %6 = tt.load %5 : tensor<64x64xf16>
  %7 = arith.constant {value = 0.0} : tensor<64x64xf32>
  %8 = tt.dot %6, %6, %7 {input_precision = "tf32", max_num_imprecise_acc = 0} : tensor<64x64xf32>
  %9 = tt.reduce %8 {axis = 1} : tensor<64xf32> {
  ^bb0(%10: f32, %11: f32):
    %12 = arith.maxnumf %10, %11 : f32
    tt.reduce.return %12
  }
  %13 = tt.scan %9 {axis = 0, reverse = false} : tensor<64xf32> {
  ^bb0(%14: f32, %15: f32):
    %16 = arith.addf %14, %15 : f32
    tt.scan.return %16
  }
  %17 = tt.reshape %13 {allow_reorder = false} : tensor<32x2xf32>
  %18, %19 = tt.split %17 : tensor<32xf32>, tensor<32xf32>
  %20 = tt.join %18, %19 : tensor<32x2xf32>
  %21 = arith.extsi %n : i64
  %22 = arith.constant {value = 1} : i64
  %23 = tt.make_tensor_descriptor %p, %n, %n, %21, %22 {padding = "zero"} : !tt.tensordesc<tensor<64x64xf16>>
  %24 = arith.constant {value = 0} : i32
  %25 = tt.descriptor_load %23, %24, %24 : tensor<64x64xf16>
  tt.descriptor_store %23, %25, %24, %24
  %26 = arith.truncf %8 : tensor<64x64xf16>
  %27 = arith.cmpf %26, %25 {predicate = "olt"} : tensor<64x64xi1>
  %28 = arith.select %27, %26, %25 : tensor<64x64xf16>
  tt.return
}
"#;

#[test]
fn round_trip_add_kernel() {
    assert_eq!(check(ADD_KERNEL), ADD_KERNEL);
}

#[test]
fn round_trip_control_flow() {
    assert_eq!(check(CONTROL_FLOW), CONTROL_FLOW);
}

#[test]
fn round_trip_tensor_ops() {
    assert_eq!(check(TENSOR_OPS), TENSOR_OPS);
}

/// Every element type, pointers and tensors of them, descriptors, and module attributes with
/// extreme values.
const TYPES: &str = r#"module attributes {min = -9223372036854775808, max = 9223372036854775807, tiny = 1e-300, huge = 1.7976931348623157e308, list = [-1, 0, 3], empty = [], quoted = "a \"b\" \\c"}
tt.func private @types(%a: i1, %b: i8, %c: i16, %d: i32, %e: i64, %f: u8, %g: u16, %h: u32, %i: u64, %j: f8E4M3FN, %k: f8E5M2, %l: f16, %m: bf16, %o: f32, %q: f64, %r: !tt.ptr<bf16>, %s: tensor<128x64xf32>, %t: tensor<128x!tt.ptr<bf16>>, %u: !tt.tensordesc<tensor<64x64xf16>>, %v: tensor<2x4x8xf8E5M2>) -> (tensor<128x64xf32>, !tt.ptr<bf16>) {
  tt.return %s, %r
}
"#;

#[test]
fn round_trip_types_and_module_attributes() {
    assert_eq!(check(TYPES), TYPES);
}

/// Parameters whose source names are not plain identifiers print as `%argN`, and parse back to
/// those names; `loc(...)` suffixes are read and dropped.
#[test]
fn round_trip_built_module_with_locations() {
    let mut f =
        Function::new("k", FuncKind::Kernel, &[Type::scalar(DType::I32), Type::scalar(DType::I32)], &[]);
    f.arg_names = vec!["x".into(), "x".into()];
    let (x, y) = (f.params()[0], f.params()[1]);
    let entry = f.entry;
    let mut b = Builder::at_end(&mut f.body, entry);
    b.span = Span::new(4, 5);
    let sum = b.same_type(Opcode::AddI, vec![x, y]);
    let attrs = Attrs::new().with("prefix", Attr::Str("s = ".into()));
    b.op(Opcode::Print, vec![sum], &[], attrs);
    b.op(Opcode::Return, vec![], &[], Attrs::new());
    let source = SourceFile { path: "dir/k.py".into(), text: "def k(x, y):\n  print(x + y)\n".into() };
    let module = Module { functions: vec![f], source: Some(source), attrs: Attrs::new() };

    let with_locations = print_module_with(&module, PrintOptions { locations: true });
    let expected_with_locations = r#"tt.func public @k(%x: i32, %arg1: i32) {
  %0 = arith.addi %x, %arg1 : i32 loc("dir/k.py":1:5)
  tt.print %0 {prefix = "s = "} loc("dir/k.py":1:5)
  tt.return loc("dir/k.py":1:5)
}
"#;
    assert_eq!(with_locations, expected_with_locations);
    let expected = expected_with_locations.replace(r#" loc("dir/k.py":1:5)"#, "");
    assert_eq!(check(&with_locations), expected);
    assert_eq!(print_module(&module), expected);
    let parsed = parse_module(&with_locations).unwrap();
    assert_eq!(parsed.functions[0].arg_names, ["x", "arg1"]);
    assert_eq!(parsed.functions[0].kind, FuncKind::Kernel);
}

/// Blank lines, `//` comments and extra spaces are not part of the format but are accepted.
#[test]
fn comments_and_spacing_are_ignored() {
    let text = "// a comment\n\ntt.func   private @f(%a:i32)->(i32){\n  // inside\n  tt.return   %a\n}\n";
    assert_eq!(check(text), "tt.func private @f(%a: i32) -> (i32) {\n  tt.return %a\n}\n");
    assert_eq!(check(""), "");
}

#[test]
fn float_attributes_keep_their_bits() {
    let module = parse_module(CONTROL_FLOW).unwrap();
    let body = &module.functions[1].body;
    let values: Vec<f64> = body
        .walk(module.functions[1].entry)
        .into_iter()
        .filter_map(|op| body.op(op).attrs.float("value"))
        .collect();
    assert!(values[0].is_nan());
    assert_eq!(values[1..5], [f64::INFINITY, f64::NEG_INFINITY, 1e-8, 0.0]);
    assert!(values[4].is_sign_negative(), "-0.0 must keep its sign");
}

// ---- parse errors ---------------------------------------------------------------------------------

/// Wraps op lines in a function `@f(%a: i32, %t: tensor<4xf32>)`, so the first op is on line 2.
fn in_function(ops: &str) -> String {
    format!("tt.func public @f(%a: i32, %t: tensor<4xf32>) {{\n{ops}  tt.return\n}}\n")
}

#[test]
fn parse_errors() {
    let cases = [
        ("  %0 = arith.bogus %a : i32\n", "2:8: unknown op `arith.bogus`"),
        ("  %0 = arith.addi %a, %b : i32\n", "2:23: use of undefined value %b"),
        ("  %0 = arith.addi %a, %a, %a : i32\n", "2:8: `arith.addi` takes 2 operands, found 3"),
        ("  %0 = tt.split %t : tensor<2xf32>\n", "2:8: `tt.split` takes 2 results, found 1"),
        (
            "  %0, %1 = arith.addi %a, %a : i32\n",
            "2:12: `arith.addi` names 2 results but gives 1 result types",
        ),
        ("  %0 = arith.constant {value = 1} : tensor<4xq32>\n", "2:46: unknown type `q32`"),
        (
            "  %0 = arith.constant {value = 1} : tensor<4f32>\n",
            "2:45: expected `x` after a dimension, found `f32`",
        ),
        ("  %0 = arith.constant {value = 1} : !tt.ptr<f32\n", "2:48: expected `>`, found end of line"),
        (
            "  %0 = arith.constant {value = 99999999999999999999} : i64\n",
            "2:32: integer `99999999999999999999` does not fit in i64",
        ),
        ("  %0 = arith.constant {value = \"abc} : i64\n", "2:32: unterminated string"),
        ("  %0 = arith.constant {value = \"\\q\"} : i64\n", "2:33: unknown escape in string"),
        ("  %0 = arith.constant {value = 1, value = 2} : i64\n", "2:34: attribute `value` is given twice"),
        (
            "  %0 = arith.constant {value = 1} : i32\n  %0 = arith.constant {value = 2} : i32\n",
            "3:3: value %0 is defined twice",
        ),
        (
            "  %0 = arith.addi %a, %a : i32 junk\n",
            "2:32: expected the end of the line after the op, found `junk`",
        ),
        ("  %0 = arith.constant {value = 1} : i32 loc(\"f.py\":3)\n", "2:53: expected `:`, found `)`"),
    ];
    let mut mismatches = Vec::new();
    for (ops, expected) in cases {
        let found = check(&in_function(ops));
        if found != format!("parse error: {expected}") {
            mismatches.push(format!("{ops:?}\n  expected: {expected}\n  found:    {found}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn parse_errors_in_regions_and_structure() {
    // A value defined in a loop body is not visible after the loop.
    let escaped = in_function(
        "  %0 = scf.for %a, %a, %a {\n  ^bb0(%1: i32):\n    %2 = arith.addi %1, %1 : i32\n  }\n  %3 = arith.addi %2, %2 : i32\n",
    );
    assert_eq!(check(&escaped), "parse error: 2:8: `scf.for` names 1 results but gives 0 result types");
    let escaped = escaped.replace("  %0 = scf.for %a, %a, %a {", "  scf.for %a, %a, %a {");
    assert_eq!(check(&escaped), "parse error: 6:19: use of undefined value %2");

    let no_do = in_function("  scf.while {\n    scf.condition %a\n  } {\n    scf.yield\n  }\n");
    assert_eq!(check(&no_do), "parse error: 4:5: expected `do` between the two regions, found `{`");
    let wrong_keyword = no_do.replace("} {", "} else {");
    assert_eq!(check(&wrong_keyword), "parse error: 4:5: unexpected `else` after a region");
    let one_region = in_function("  scf.if %a {\n  }\n");
    assert_eq!(check(&one_region), "parse error: 2:3: `scf.if` takes 2 regions, found 1");

    assert_eq!(check("func @f() {}\n"), "parse error: 1:1: expected `tt.func`, found `func`");
    assert_eq!(check("tt.func @f() {}\n"), "parse error: 1:9: expected `public` or `private`, found `@`");
    assert_eq!(
        check("tt.func public @f(%a: i32 {\n"),
        "parse error: 1:28: expected an attribute name, found end of line"
    );
    assert_eq!(
        check("tt.func public @f() {\n  tt.return\n"),
        "parse error: 3:1: expected `}`, found end of input"
    );
    let twice = "tt.func public @f() {\n  tt.return\n}\ntt.func public @f() {\n  tt.return\n}\n";
    assert_eq!(check(twice), "parse error: 4:1: function @f is defined twice");
    assert_eq!(check("module attributes {a = 1e}\n"), "parse error: 1:26: expected an exponent, found `}`");
}

/// Truncations and byte edits of valid modules give errors, never panics.
#[test]
fn malformed_input_never_panics() {
    let mut inputs = 0;
    for text in [ADD_KERNEL, CONTROL_FLOW, TENSOR_OPS, TYPES] {
        for (n, (i, _)) in text.char_indices().enumerate() {
            let _ = parse_module(&text[..i]);
            if n % 3 != 0 {
                continue;
            }
            for replacement in ["", "{", "}", "%", "\"", "x", "-", "\u{e9}", "\n", ":", "<"] {
                let mut edited = String::from(&text[..i]);
                edited.push_str(replacement);
                edited.push_str(&text[i..].chars().skip(1).collect::<String>());
                if let Ok(module) = parse_module(&edited) {
                    let _ = verify_module(&module);
                }
                inputs += 1;
            }
        }
    }
    assert!(inputs > 5_000);
    let deep = format!("tt.func public @f(%a: i1) {{\n{}", "scf.if %a {\n".repeat(10_000));
    assert_eq!(parse_module(&deep).unwrap_err().message, "regions nested deeper than 200");
}

// ---- verifier errors ------------------------------------------------------------------------------

#[test]
fn verifier_errors() {
    let cases = [
        (
            "  %0 = arith.extsi %a : i64\n  %1 = arith.addi %a, %0 : i32\n",
            "`%1 = arith.addi %a, %0 : i32`: operand 1 has type i64, expected i32",
        ),
        ("  %0 = arith.addf %a, %a : i32\n", "`%0 = arith.addf %a, %a : i32`: the result i32 is not of float type"),
        (
            "  %0 = arith.cmpf %t, %t {predicate = \"olt\"} : tensor<4xi32>\n",
            "`%0 = arith.cmpf %t, %t {predicate = \"olt\"} : tensor<4xi32>`: the result has type tensor<4xi32>, expected tensor<4xi1>",
        ),
        (
            "  %0 = arith.sitofp %a : tensor<4xf32>\n",
            "`%0 = arith.sitofp %a : tensor<4xf32>`: a cast from i32 to tensor<4xf32> changes the shape",
        ),
        (
            "  %0 = tt.splat %t : tensor<4xf32>\n",
            "`%0 = tt.splat %t : tensor<4xf32>`: splat goes from a scalar to a tensor, not from tensor<4xf32> to tensor<4xf32>",
        ),
        (
            "  %0 = tt.broadcast %t : tensor<8xf32>\n",
            "`%0 = tt.broadcast %t : tensor<8xf32>`: cannot broadcast tensor<4xf32> to tensor<8xf32>",
        ),
        (
            "  %0 = tt.expand_dims %t {axis = 0} : tensor<4x1xf32>\n",
            "`%0 = tt.expand_dims %t {axis = 0} : tensor<4x1xf32>`: the result has type tensor<4x1xf32>, expected tensor<1x4xf32>",
        ),
        (
            "  %0 = tt.reshape %t : tensor<2x4xf32>\n",
            "`%0 = tt.reshape %t : tensor<2x4xf32>`: reshape of tensor<4xf32> to tensor<2x4xf32> changes the element count",
        ),
        (
            "  %0 = tt.trans %t {order = [1]} : tensor<4xf32>\n",
            "`%0 = tt.trans %t {order = [1]} : tensor<4xf32>`: order [1] is not a permutation of the 1 dimensions",
        ),
        (
            "  %0, %1 = tt.split %t : tensor<2xf32>, tensor<2xf32>\n",
            "`%0, %1 = tt.split %t : tensor<2xf32>, tensor<2xf32>`: the minor dimension of tensor<4xf32> is not 2",
        ),
        (
            "  %0 = tt.load %t : f32\n",
            "`%0 = tt.load %t : f32`: operand 0 has type tensor<4xf32>, expected pointers",
        ),
        (
            "  %0 = tt.dot %t, %t, %t : tensor<4xf32>\n",
            "`%0 = tt.dot %t, %t, %t : tensor<4xf32>`: operands (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) are not all rank 2 or all rank 3",
        ),
        (
            "  %0 = tt.reduce %t {axis = 0} : tensor<4xf32> {\n  ^bb0(%1: f32, %2: f32):\n    tt.reduce.return %1\n  }\n",
            "`%0 = tt.reduce %t {axis = 0} : tensor<4xf32>`: results have types (tensor<4xf32>), expected (f32)",
        ),
        (
            "  %0 = tt.reduce %t {axis = 0} : f32 {\n  ^bb0(%1: f32, %2: f32):\n    scf.yield %1\n  }\n",
            "`scf.yield %1`: this block must end in tt.reduce.return, not scf.yield",
        ),
        (
            "  %0 = arith.constant {value = 1} : i64\n  %1 = scf.for %a, %a, %a, %0 : i64 {\n  ^bb0(%2: i32, %3: i64):\n    scf.yield %a\n  }\n",
            "`%1 = scf.for %a, %a, %a, %0 : i64`: values yielded by the body have types (i32), expected (i64)",
        ),
        (
            "  %0 = scf.for %a, %a, %a, %a : i32 {\n  ^bb0(%1: i32, %2: i32):\n  }\n",
            "a region of `%0 = scf.for %a, %a, %a, %a : i32` does not end in scf.yield",
        ),
        (
            "  %0 = scf.while %a : i32 {\n  ^bb0(%1: i32):\n    scf.condition %1, %1\n  } do {\n  ^bb0(%2: i32):\n    scf.yield %2\n  }\n",
            "`scf.condition %1, %1`: the condition has type i32, expected i1",
        ),
        (
            "  %0 = tt.call %a {callee = \"g\"} : i32\n",
            "`%0 = tt.call %a {callee = \"g\"} : i32`: no function @g",
        ),
        ("  %0 = arith.constant {value = 1} : tensor<i32>\n", "`%0 = arith.constant {value = 1} : tensor<i32>`: tensor<i32> has no dimensions"),
        ("  tt.return\n  %0 = arith.addi %a, %a : i32\n", "`tt.return`: a terminator must be the last op of its block"),
        (
            "  %0 = ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} : i32 {\n    scf.yield %a\n  } producer {\n    %1 = arith.addf %t, %t : tensor<4xf32>\n  }\n",
            "`%0 = ttng.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} : i32`: the producer region reads the tensor %t from outside",
        ),
        (
            "  ttng.warp_specialize {producer_warps = 4} {\n  } producer {\n  }\n",
            "`ttng.warp_specialize {producer_warps = 4}`: missing positive integer attribute `producer_registers`",
        ),
        (
            "  ttng.warp_specialize {producer_warps = 2, producer_registers = 40, consumer_registers = 232} {\n  } producer {\n  }\n",
            "`ttng.warp_specialize {producer_warps = 2, producer_registers = 40, consumer_registers = 232}`: 2 producer warps with 40 registers beside consumers with 232: setmaxnreg needs whole warpgroups, 24 to 256 registers in steps of 8, more for the consumers",
        ),
    ];
    let mut mismatches = Vec::new();
    for (ops, expected) in cases {
        let found = check(&in_function(ops));
        if found != format!("verify error: in @f: {expected}") {
            mismatches.push(format!("{ops:?}\n  expected: {expected}\n  found:    {found}"));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn verifier_checks_calls_and_returns() {
    let callee = "tt.func private @g(%x: f32) -> (f32) {\n  tt.return %x\n}\n\n";
    let call = format!("{callee}{}", in_function("  %0 = tt.call %a {callee = \"g\"} : f32\n"));
    assert_eq!(
        check(&call),
        "verify error: in @f: `%0 = tt.call %a {callee = \"g\"} : f32`: arguments of @g have types (i32), expected (f32)"
    );
    let bad_return = "tt.func private @g(%x: f32) -> (f32) {\n  tt.return\n}\n";
    assert_eq!(
        check(bad_return),
        "verify error: in @g: `tt.return`: returned values have types (), expected (f32)"
    );
    let no_return = "tt.func private @g(%x: f32) {\n}\n";
    assert_eq!(check(no_return), "verify error: in @g: the function body does not end in tt.return");
}

/// Misuses only a builder can produce: a value used outside the region that defines it, a value
/// used before its definition, and an op listed in two blocks.
#[test]
fn verifier_checks_visibility_of_built_ops() {
    let build = |misuse: &dyn Fn(&mut Function)| {
        let mut f = Function::new("f", FuncKind::Kernel, &[Type::scalar(DType::I32)], &[]);
        misuse(&mut f);
        let mut module = Module::default();
        module.functions.push(f);
        verify_built(&module)
    };

    let escaped = build(&|f| {
        let a = f.params()[0];
        let (entry, body_block) = (f.entry, f.body.new_block(&[Type::scalar(DType::I32)]));
        let mut inner = Builder::at_end(&mut f.body, body_block);
        let sum = inner.same_type(Opcode::AddI, vec![a, a]);
        inner.op(Opcode::Yield, vec![], &[], Attrs::new());
        let mut outer = Builder::at_end(&mut f.body, entry);
        outer.op_with_regions(Opcode::For, vec![a, a, a], &[], Attrs::new(), vec![body_block]);
        outer.same_type(Opcode::MulI, vec![sum, sum]);
        outer.op(Opcode::Return, vec![], &[], Attrs::new());
    });
    assert_eq!(
        escaped,
        "in @f: `%2 = arith.muli %1, %1 : i32`: operand 0 (%1) is not defined before this use"
    );

    let use_before_def = build(&|f| {
        let (a, entry) = (f.params()[0], f.entry);
        let mut b = Builder::at_end(&mut f.body, entry);
        let sum = b.same_type(Opcode::AddI, vec![a, a]);
        let product = b.same_type(Opcode::MulI, vec![sum, sum]);
        b.op(Opcode::Return, vec![], &[], Attrs::new());
        // Make the first op use the second one's result.
        let first = f.body.blocks[entry].ops[0];
        f.body.ops[first].operands[1] = product;
    });
    assert_eq!(
        use_before_def,
        "in @f: `%0 = arith.addi %arg0, %1 : i32`: operand 1 (%1) is not defined before this use"
    );

    let listed_twice = build(&|f| {
        let (a, entry) = (f.params()[0], f.entry);
        let mut b = Builder::at_end(&mut f.body, entry);
        let sum = b.same_type(Opcode::AddI, vec![a, a]);
        b.op(Opcode::Return, vec![], &[], Attrs::new());
        let op = f.body.def_op(sum).unwrap();
        f.body.blocks[entry].ops.insert(0, op);
    });
    assert_eq!(listed_twice, "in @f: an op (arith.addi) is listed twice");

    let fine = build(&|f| {
        let (a, entry) = (f.params()[0], f.entry);
        let mut b = Builder::at_end(&mut f.body, entry);
        let c = b.cmpi("slt", a, a);
        let tensor = b.splat(a, &[16]);
        let mask = b.splat(c, &[16]);
        b.select(mask, tensor, tensor);
        b.cast(Opcode::SIToFP, a, Type::scalar(DType::F32));
        b.op(Opcode::Return, vec![], &[], Attrs::new());
    });
    assert_eq!(fine, "ok");
}
