//! Execution tests of the reference interpreter on small TTIR kernels built with the IR
//! builder: exact integer and float semantics, dot precision, reductions and scans with a
//! non-commutative combine, masked and out-of-bounds memory accesses.

use trident_midend::ir::{
    Attr, Attrs, Builder, DType, Elem, FuncKind, Function, Module, Opcode, Span, Type, Value,
};
use trident_runtime::interp::{run, RuntimeError};
use trident_runtime::{ArgValue, Buffer, Grid};

/// A module with one kernel `k` whose body `build` writes (a `tt.return` is appended).
fn kernel(params: &[Type], build: impl FnOnce(&mut Builder, &[Value])) -> Module {
    let mut f = Function::new("k", FuncKind::Kernel, params, &[]);
    let entry = f.entry;
    let args = f.params().to_vec();
    let mut b = Builder::at_end(&mut f.body, entry);
    build(&mut b, &args);
    b.op(Opcode::Return, vec![], &[], Attrs::new());
    Module { functions: vec![f], ..Module::default() }
}

fn i32_tensor(n: u32) -> Type {
    Type::tensor(Elem::Scalar(DType::I32), &[n])
}

fn range(b: &mut Builder, n: u32) -> Value {
    let attrs = Attrs::new().with("start", Attr::Int(0)).with("end", Attr::Int(n as i64));
    b.value(Opcode::MakeRange, vec![], i32_tensor(n), attrs)
}

/// `base + offsets` with `base` splatted to the offsets' shape.
fn ptrs(b: &mut Builder, base: Value, offsets: Value) -> Value {
    let shape = b.ty(offsets).shape().to_vec();
    let pointee = b.ty(base).dtype();
    let base = b.splat(base, &shape);
    b.value(Opcode::AddPtr, vec![base, offsets], Type::tensor(Elem::Ptr(pointee), &shape), Attrs::new())
}

/// Row-major offsets of a `rows x cols` tile.
fn tile_offsets(b: &mut Builder, rows: u32, cols: u32) -> Value {
    let r = range(b, rows);
    let c = range(b, cols);
    let axis = |a| Attrs::new().with("axis", Attr::Int(a));
    let r = b.value(Opcode::ExpandDims, vec![r], Type::tensor(Elem::Scalar(DType::I32), &[rows, 1]), axis(1));
    let c = b.value(Opcode::ExpandDims, vec![c], Type::tensor(Elem::Scalar(DType::I32), &[1, cols]), axis(0));
    let shape = [rows, cols];
    let full = Type::tensor(Elem::Scalar(DType::I32), &shape);
    let stride = b.const_int(DType::I32, cols as i64);
    let stride = b.splat(stride, &[rows, 1]);
    let r = b.same_type(Opcode::MulI, vec![r, stride]);
    let r = b.value(Opcode::Broadcast, vec![r], full.clone(), Attrs::new());
    let c = b.value(Opcode::Broadcast, vec![c], full, Attrs::new());
    b.same_type(Opcode::AddI, vec![r, c])
}

fn load(b: &mut Builder, p: Value, mask: Option<Value>, other: Option<Value>) -> Value {
    let ty = b.ty(p);
    let ty = ty.with_dtype(ty.dtype());
    let operands = [Some(p), mask, other].into_iter().flatten().collect();
    b.value(Opcode::Load, operands, ty, Attrs::new())
}

fn store(b: &mut Builder, p: Value, v: Value) {
    b.op(Opcode::Store, vec![p, v], &[], Attrs::new());
}

/// Stores scalar `v` at element `index` of the buffer `base` points to.
fn store_at(b: &mut Builder, base: Value, index: i64, v: Value) {
    let offset = b.const_int(DType::I32, index);
    let ty = b.ty(base);
    let p = b.value(Opcode::AddPtr, vec![base, offset], ty, Attrs::new());
    store(b, p, v);
}

fn f32_buffer(name: &str, values: &[f32]) -> Buffer {
    let mut buf = Buffer::zeros(name, DType::F32, values.len());
    buf.bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    buf
}

fn read_f32(buf: &Buffer) -> Vec<f32> {
    buf.bytes.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn read_i32(buf: &Buffer) -> Vec<i32> {
    buf.bytes.chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn run1(module: &Module, args: &[ArgValue], buffers: &mut [Buffer]) -> Result<(), RuntimeError> {
    run(module, "k", Grid([1, 1, 1]), args, buffers)
}

#[test]
fn integer_ops_wrap_and_divide_like_c() {
    let i32t = Type::scalar(DType::I32);
    let u32t = Type::scalar(DType::U32);
    let m = kernel(&[Type::ptr(DType::I32), i32t.clone(), i32t.clone()], |b, p| {
        let (out, max, min) = (p[0], p[1], p[2]);
        let one = b.const_int(DType::I32, 1);
        let results = [
            b.same_type(Opcode::AddI, vec![max, one]),
            {
                let (x, y) = (b.const_int(DType::I32, -7), b.const_int(DType::I32, 2));
                b.same_type(Opcode::DivSI, vec![x, y])
            },
            {
                let (x, y) = (b.const_int(DType::I32, -7), b.const_int(DType::I32, 2));
                b.same_type(Opcode::RemSI, vec![x, y])
            },
            {
                let minus_one = b.const_int(DType::I32, -1);
                b.same_type(Opcode::DivSI, vec![min, minus_one])
            },
            {
                let (x, y) = (b.const_int(DType::I32, -8), b.const_int(DType::I32, 40));
                b.same_type(Opcode::ShRSI, vec![x, y])
            },
            {
                let y = b.const_int(DType::I32, 32);
                b.same_type(Opcode::ShLI, vec![one, y])
            },
            {
                // u32: 0xFFFF_FFF9 / 2, then bitcast back to i32 for the store.
                let x = b.const_int(DType::U32, -7);
                let y = b.const_int(DType::U32, 2);
                let q = b.same_type(Opcode::DivUI, vec![x, y]);
                b.cast(Opcode::Bitcast, q, i32t.clone())
            },
            {
                let x = b.const_int(DType::U32, 0xFFFF_FFFF);
                let y = b.const_int(DType::U32, 0xFFFF_FFFF);
                let hi = b.same_type(Opcode::MulHiUI, vec![x, y]);
                b.cast(Opcode::Bitcast, hi, i32t.clone())
            },
            {
                let x = b.const_int(DType::I32, -1);
                let y = b.const_int(DType::I32, 1);
                let lt = b.cmpi("ult", y, x);
                b.cast(Opcode::ExtUI, lt, i32t.clone())
            },
        ];
        let _ = &u32t;
        for (i, v) in results.into_iter().enumerate() {
            store_at(b, out, i as i64, v);
        }
    });
    let mut bufs = vec![Buffer::zeros("out", DType::I32, 9)];
    let args = [ArgValue::Buffer(0), ArgValue::Int(i32::MAX as i64), ArgValue::Int(i32::MIN as i64)];
    run1(&m, &args, &mut bufs).unwrap();
    assert_eq!(
        read_i32(&bufs[0]),
        vec![i32::MIN, -3, -1, i32::MIN, -1, 0, 0x7FFF_FFFC, -2, 1],
        "addi wrap, divsi, remsi, MIN/-1, shrsi >= width, shli >= width, divui, mulhiui, cmpi ult"
    );
}

#[test]
fn division_by_zero_is_an_error_with_the_span() {
    let m = kernel(&[Type::ptr(DType::I32), Type::scalar(DType::I32)], |b, p| {
        let seven = b.const_int(DType::I32, 7);
        b.span = Span::new(3, 9);
        let q = b.same_type(Opcode::DivSI, vec![seven, p[1]]);
        b.span = Span::NONE;
        store_at(b, p[0], 0, q);
    });
    let mut bufs = vec![Buffer::zeros("out", DType::I32, 1)];
    let e = run1(&m, &[ArgValue::Buffer(0), ArgValue::Int(0)], &mut bufs).unwrap_err();
    assert_eq!(e.span, Some(Span::new(3, 9)));
    assert!(e.message.contains("division by zero"), "{}", e.message);
}

/// A kernel computing out[i] = f(x[i]) over `n` f32 elements, with `f` built by `body`.
fn map_f32(n: u32, body: impl FnOnce(&mut Builder, Value) -> Value) -> Module {
    kernel(&[Type::ptr(DType::F32), Type::ptr(DType::F32)], |b, p| {
        let offs = range(b, n);
        let xp = ptrs(b, p[0], offs);
        let x = load(b, xp, None, None);
        let y = body(b, x);
        let op = ptrs(b, p[1], offs);
        store(b, op, y);
    })
}

fn eval_map(n: u32, input: &[f32], body: impl FnOnce(&mut Builder, Value) -> Value) -> Vec<f32> {
    let m = map_f32(n, body);
    let mut bufs = vec![f32_buffer("x", input), Buffer::zeros("out", DType::F32, input.len())];
    run1(&m, &[ArgValue::Buffer(0), ArgValue::Buffer(1)], &mut bufs).unwrap();
    read_f32(&bufs[1])
}

/// Round trip through a narrower float type `d` with `narrow` (truncf or fp_to_fp).
fn through(d: DType, narrow: Opcode, widen: Opcode, input: &[f32]) -> Vec<f32> {
    eval_map(input.len() as u32, input, |b, x| {
        let shape = b.ty(x).shape().to_vec();
        let t = b.cast(narrow, x, Type::tensor(Elem::Scalar(d), &shape));
        b.cast(widen, t, Type::tensor(Elem::Scalar(DType::F32), &shape))
    })
}

#[test]
fn f16_and_bf16_round_to_nearest_even() {
    let p = |e: i32| 2f32.powi(e);
    let input =
        [1.0 + p(-11), 1.0 + 3.0 * p(-11), 65520.0, 65519.0, 1e-8, -3.0e-8, 1.0 + p(-11) + p(-20), 0.1];
    let got = through(DType::F16, Opcode::TruncF, Opcode::ExtF, &input);
    let want = [1.0, 1.0 + p(-9), f32::INFINITY, 65504.0, 0.0, -p(-24), 1.0 + p(-10), 1638.0 / 16384.0];
    assert_eq!(got, want);

    let input = [1.0 + p(-8), 1.0 + 3.0 * p(-8), 1.0 + p(-8) + p(-20), 3.0e38, -0.1];
    let got = through(DType::BF16, Opcode::TruncF, Opcode::ExtF, &input);
    let want = [1.0, 1.0 + p(-6), 1.0 + p(-7), 226.0 * p(120), -205.0 / 2048.0];
    assert_eq!(got, want);
}

#[test]
fn f16_arithmetic_rounds_after_each_op() {
    // 2048 + 1 is a tie in f16 (ulp 2): it rounds to even, 2048; 2048 + 3 gives 2052.
    let got = eval_map(4, &[1.0, 3.0, 1.0, 0.5], |b, x| {
        let h = Type::tensor(Elem::Scalar(DType::F16), &[4]);
        let xh = b.cast(Opcode::TruncF, x, h.clone());
        let big = b.constant(h, Attr::Float(2048.0));
        let s = b.same_type(Opcode::AddF, vec![big, xh]);
        b.cast(Opcode::ExtF, s, Type::tensor(Elem::Scalar(DType::F32), &[4]))
    });
    assert_eq!(got, vec![2048.0, 2052.0, 2048.0, 2048.0]);
}

#[test]
fn fp8_round_trips_saturate_and_round_to_even() {
    let input = [448.0, 500.0, 1e6, -1000.0, 0.1, 17.0, 19.0, f32::NAN];
    let got = through(DType::F8E4M3, Opcode::FpToFp, Opcode::FpToFp, &input);
    let want = [448.0, 448.0, 448.0, -448.0, 0.1015625, 16.0, 20.0];
    assert_eq!(&got[..7], &want);
    assert!(got[7].is_nan());

    let input = [60000.0, 1e-6, 1.0e-5, 0.3, f32::INFINITY, -57344.0, 2.5, 3.5];
    let got = through(DType::F8E5M2, Opcode::FpToFp, Opcode::FpToFp, &input);
    let want = [57344.0, 0.0, 2f32.powi(-16), 0.3125, f32::INFINITY, -57344.0, 2.5, 3.5];
    assert_eq!(got, want);
}

#[test]
fn fp8_stores_the_encoded_byte() {
    let m = kernel(&[Type::ptr(DType::F32), Type::ptr(DType::F8E4M3)], |b, p| {
        let offs = range(b, 4);
        let xp = ptrs(b, p[0], offs);
        let x = load(b, xp, None, None);
        let t = b.cast(Opcode::FpToFp, x, Type::tensor(Elem::Scalar(DType::F8E4M3), &[4]));
        let op = ptrs(b, p[1], offs);
        store(b, op, t);
    });
    let mut bufs =
        vec![f32_buffer("x", &[448.0, -1.0, 0.001953125, 0.0]), Buffer::zeros("y", DType::F8E4M3, 4)];
    run1(&m, &[ArgValue::Buffer(0), ArgValue::Buffer(1)], &mut bufs).unwrap();
    // 448 = 0 1111 110, -1 = 1 0111 000, 2^-9 = smallest subnormal.
    assert_eq!(bufs[1].bytes, vec![0x7e, 0xb8, 0x01, 0x00]);
}

/// out = a @ b (2x2 f32 tiles, zero accumulator) with `input_precision`.
fn dot_2x2(precision: Option<&str>, a: &[f32], bm: &[f32]) -> Vec<f32> {
    let m = kernel(&[Type::ptr(DType::F32), Type::ptr(DType::F32), Type::ptr(DType::F32)], |b, p| {
        let offs = tile_offsets(b, 2, 2);
        let ap = ptrs(b, p[0], offs);
        let av = load(b, ap, None, None);
        let bp = ptrs(b, p[1], offs);
        let bv = load(b, bp, None, None);
        let tile = Type::tensor(Elem::Scalar(DType::F32), &[2, 2]);
        let zero = b.constant(tile.clone(), Attr::Float(0.0));
        let mut attrs = Attrs::new();
        if let Some(p) = precision {
            attrs.set("input_precision", Attr::Str(p.into()));
        }
        let d = b.value(Opcode::Dot, vec![av, bv, zero], tile, attrs);
        let op = ptrs(b, p[2], offs);
        store(b, op, d);
    });
    let mut bufs = vec![f32_buffer("a", a), f32_buffer("b", bm), Buffer::zeros("c", DType::F32, 4)];
    run1(&m, &[ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2)], &mut bufs).unwrap();
    read_f32(&bufs[2])
}

#[test]
fn dot_rounds_inputs_to_tf32_unless_ieee() {
    let p = |e: i32| 2f32.powi(e);
    let x = 1.0 + p(-11); // a tie for tf32: rounds away from zero to 1 + 2^-10
    let y = 1.0 + p(-12); // below half an ulp: rounds to 1
    let a = [x, -x, y, 3.0];
    let ones = [1.0, 0.0, 0.0, 1.0];
    let ieee = dot_2x2(Some("ieee"), &a, &ones);
    assert_eq!(ieee, a.to_vec());
    let tf32 = dot_2x2(Some("tf32"), &a, &ones);
    assert_eq!(tf32, vec![1.0 + p(-10), -(1.0 + p(-10)), 1.0, 3.0]);
    assert_eq!(dot_2x2(None, &a, &ones), tf32, "tf32 is the default for f32 inputs");
    // Real products, rounded to f32 at each step: 1*2 + 2^-24*7 = 2 + 1.75 ulp -> 2 + 2 ulp.
    let c = dot_2x2(Some("ieee"), &[3.0, 5.0, 1.0, p(-24)], &[2.0, 0.0, 7.0, 0.0]);
    assert_eq!(c, vec![41.0, 0.0, 2.0 + p(-21), 0.0]);
}

/// The affine-map composition "first (a1, b1), then (a2, b2)": x -> a2 (a1 x + b1) + b2.
/// Associative but not commutative.
fn compose(b: &mut Builder, region_ret: Opcode) -> trident_midend::ir::Block {
    let i32t = Type::scalar(DType::I32);
    let region = b.body.new_block(&[i32t.clone(), i32t.clone(), i32t.clone(), i32t]);
    let args = b.body.blocks[region].args.clone();
    let mut rb = Builder::at_end(&mut *b.body, region);
    let a = rb.same_type(Opcode::MulI, vec![args[0], args[2]]);
    let t = rb.same_type(Opcode::MulI, vec![args[2], args[1]]);
    let c = rb.same_type(Opcode::AddI, vec![t, args[3]]);
    rb.op(region_ret, vec![a, c], &[], Attrs::new());
    region
}

fn compose_host(x: (i32, i32), y: (i32, i32)) -> (i32, i32) {
    (x.0.wrapping_mul(y.0), y.0.wrapping_mul(x.1).wrapping_add(y.1))
}

const N: u32 = 8;

fn affine_inputs() -> (Vec<i32>, Vec<i32>) {
    ((0..N as i32).map(|i| i * 3 - 5).collect(), (0..N as i32).map(|i| 7 - i * i).collect())
}

fn i32_buffer(name: &str, v: &[i32]) -> Buffer {
    let mut buf = Buffer::zeros(name, DType::I32, v.len());
    buf.bytes = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    buf
}

#[test]
fn reduce_keeps_the_order_of_a_non_commutative_combine() {
    let params = [Type::ptr(DType::I32), Type::ptr(DType::I32), Type::ptr(DType::I32)];
    let m = kernel(&params, |b, p| {
        let offs = range(b, N);
        let ap = ptrs(b, p[0], offs);
        let av = load(b, ap, None, None);
        let bp = ptrs(b, p[1], offs);
        let bv = load(b, bp, None, None);
        let region = compose(b, Opcode::ReduceReturn);
        let i32t = Type::scalar(DType::I32);
        let attrs = Attrs::new().with("axis", Attr::Int(0));
        let op = b.op_with_regions(Opcode::Reduce, vec![av, bv], &[i32t.clone(), i32t], attrs, vec![region]);
        let results = b.body.ops[op].results.clone();
        store_at(b, p[2], 0, results[0]);
        store_at(b, p[2], 1, results[1]);
    });
    let (a, c) = affine_inputs();
    let mut bufs = vec![i32_buffer("a", &a), i32_buffer("b", &c), Buffer::zeros("out", DType::I32, 2)];
    run1(&m, &[ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2)], &mut bufs).unwrap();
    let want = (1..N as usize).fold((a[0], c[0]), |acc, i| compose_host(acc, (a[i], c[i])));
    assert_eq!(read_i32(&bufs[2]), vec![want.0, want.1]);
}

fn scan_affine(reverse: bool) -> (Vec<i32>, Vec<i32>) {
    let params = [Type::ptr(DType::I32), Type::ptr(DType::I32), Type::ptr(DType::I32), Type::ptr(DType::I32)];
    let m = kernel(&params, |b, p| {
        let offs = range(b, N);
        let ap = ptrs(b, p[0], offs);
        let av = load(b, ap, None, None);
        let bp = ptrs(b, p[1], offs);
        let bv = load(b, bp, None, None);
        let region = compose(b, Opcode::ScanReturn);
        let attrs = Attrs::new().with("axis", Attr::Int(0)).with("reverse", Attr::Bool(reverse));
        let op = b.op_with_regions(
            Opcode::Scan,
            vec![av, bv],
            &[i32_tensor(N), i32_tensor(N)],
            attrs,
            vec![region],
        );
        let results = b.body.ops[op].results.clone();
        let o0 = ptrs(b, p[2], offs);
        store(b, o0, results[0]);
        let o1 = ptrs(b, p[3], offs);
        store(b, o1, results[1]);
    });
    let (a, c) = affine_inputs();
    let mut bufs = vec![
        i32_buffer("a", &a),
        i32_buffer("b", &c),
        Buffer::zeros("outa", DType::I32, N as usize),
        Buffer::zeros("outb", DType::I32, N as usize),
    ];
    let args = [ArgValue::Buffer(0), ArgValue::Buffer(1), ArgValue::Buffer(2), ArgValue::Buffer(3)];
    run1(&m, &args, &mut bufs).unwrap();
    (read_i32(&bufs[2]), read_i32(&bufs[3]))
}

#[test]
fn scan_keeps_the_order_of_a_non_commutative_combine() {
    let (a, c) = affine_inputs();
    let n = N as usize;
    let mut acc = (a[0], c[0]);
    let mut want = (vec![acc.0], vec![acc.1]);
    for i in 1..n {
        acc = compose_host(acc, (a[i], c[i]));
        want.0.push(acc.0);
        want.1.push(acc.1);
    }
    assert_eq!(scan_affine(false), want);

    // Reverse: element i accumulates x[n-1], x[n-2], ..., x[i], the later element first.
    let mut acc = (a[n - 1], c[n - 1]);
    let mut rev = (vec![0; n], vec![0; n]);
    (rev.0[n - 1], rev.1[n - 1]) = acc;
    for i in (0..n - 1).rev() {
        acc = compose_host(acc, (a[i], c[i]));
        (rev.0[i], rev.1[i]) = acc;
    }
    assert_eq!(scan_affine(true), rev);
}

/// out[i] = x[i] for i < 8 through a load of 8 lanes, masked to `limit` lanes, `other` = -1.
fn masked_copy(limit: i64, with_other: bool, x: &[f32]) -> Result<Vec<f32>, RuntimeError> {
    let m = kernel(&[Type::ptr(DType::F32), Type::ptr(DType::F32)], |b, p| {
        let offs = range(b, 8);
        let lim = b.const_int(DType::I32, limit);
        let lim = b.splat(lim, &[8]);
        let mask = b.cmpi("slt", offs, lim);
        let xp = ptrs(b, p[0], offs);
        let other =
            with_other.then(|| b.constant(Type::tensor(Elem::Scalar(DType::F32), &[8]), Attr::Float(-1.0)));
        b.span = Span::new(40, 52);
        let v = load(b, xp, Some(mask), other);
        b.span = Span::NONE;
        let op = ptrs(b, p[1], offs);
        store(b, op, v);
    });
    let mut bufs = vec![f32_buffer("x_ptr", x), Buffer::zeros("out", DType::F32, 8)];
    run1(&m, &[ArgValue::Buffer(0), ArgValue::Buffer(1)], &mut bufs)?;
    Ok(read_f32(&bufs[1]))
}

#[test]
fn masked_loads_read_other_or_zero() {
    let x = [1.5, 2.5, 3.5, 4.5];
    assert_eq!(masked_copy(4, true, &x).unwrap(), vec![1.5, 2.5, 3.5, 4.5, -1.0, -1.0, -1.0, -1.0]);
    assert_eq!(masked_copy(3, false, &x).unwrap(), vec![1.5, 2.5, 3.5, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn out_of_bounds_load_is_reported_with_its_span() {
    let e = masked_copy(5, true, &[1.0, 2.0, 3.0, 4.0]).unwrap_err();
    assert_eq!(e.span, Some(Span::new(40, 52)));
    for part in ["x_ptr", "element offset 4", "[0, 4)"] {
        assert!(e.message.contains(part), "message `{}` lacks `{part}`", e.message);
    }
}

#[test]
fn loops_program_ids_and_atomics() {
    // Each program adds sum(0..10) = 45 into out[0] atomically, stores its old value at
    // out[1 + pid], and out[5] counts the programs through a second atomic.
    let m = kernel(&[Type::ptr(DType::I32)], |b, p| {
        let i32t = Type::scalar(DType::I32);
        let (lb, ub, step) =
            (b.const_int(DType::I32, 0), b.const_int(DType::I32, 10), b.const_int(DType::I32, 1));
        let zero = b.const_int(DType::I32, 0);
        let body = b.body.new_block(&[i32t.clone(), i32t.clone()]);
        let args = b.body.blocks[body].args.clone();
        {
            let mut bb = Builder::at_end(&mut *b.body, body);
            let s = bb.same_type(Opcode::AddI, vec![args[1], args[0]]);
            bb.op(Opcode::Yield, vec![s], &[], Attrs::new());
        }
        let for_op = b.op_with_regions(
            Opcode::For,
            vec![lb, ub, step, zero],
            std::slice::from_ref(&i32t),
            Attrs::new(),
            vec![body],
        );
        let sum = b.body.ops[for_op].results[0];
        let add = Attrs::new().with("atomic_rmw_op", Attr::Str("add".into()));
        let old = b.value(Opcode::AtomicRmw, vec![p[0], sum], i32t.clone(), add.clone());
        let pid =
            b.value(Opcode::GetProgramId, vec![], i32t.clone(), Attrs::new().with("axis", Attr::Int(0)));
        let one = b.const_int(DType::I32, 1);
        let slot = b.same_type(Opcode::AddI, vec![pid, one]);
        let ty = b.ty(p[0]);
        let at = b.value(Opcode::AddPtr, vec![p[0], slot], ty.clone(), Attrs::new());
        store(b, at, old);
        let five = b.const_int(DType::I32, 5);
        let counter = b.value(Opcode::AddPtr, vec![p[0], five], ty, Attrs::new());
        b.value(Opcode::AtomicRmw, vec![counter, one], i32t, add);
    });
    let mut bufs = vec![Buffer::zeros("out", DType::I32, 6)];
    run(&m, "k", Grid([4, 1, 1]), &[ArgValue::Buffer(0)], &mut bufs).unwrap();
    assert_eq!(read_i32(&bufs[0]), vec![180, 0, 45, 90, 135, 4]);
}
