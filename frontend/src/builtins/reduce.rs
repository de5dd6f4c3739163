//! Reductions, scans, sorting and histograms: `tl.sum` / `max` / `min` / `argmax` / `argmin` /
//! `xor_sum` / `reduce`, `tl.cumsum` / `cumprod` / `associative_scan`, `tl.sort`, `tl.topk`,
//! `tl.histogram`.
//!
//! Every reduction and scan becomes one `tt.reduce` / `tt.scan` whose combine region takes two
//! scalars per operand: the built-in ones emit the combining op directly, user combine functions
//! are called (and later inlined) inside the region, as Triton does. Dtype rules follow Triton:
//! sums of integers narrower than 32 bits accumulate in 32 bits; max/min promote 8/16-bit types
//! (bf16 and f16 to f32).

use trident_midend::ir::{Attr, Attrs, Block, DType, Elem, Opcode, Type, Value};

use super::CallArgs;
use crate::lower::semantic::{BinOp, CmpOp};
use crate::lower::{FnLowerer, LResult};
use crate::value::{flatten, Const, FValue};

/// How a combine region combines its operands.
#[derive(Clone)]
enum Combine {
    Add,
    Mul,
    Max,
    Min,
    Xor,
    Or,
    And,
    /// (value, index) pairs: argmax (true) or argmin (false), ties to the smaller index.
    ArgMax(bool),
    /// The first operand (Triton's `_take_first`), to turn a one-element tensor into a scalar.
    First,
    Jit(String),
}

pub fn call(l: &mut FnLowerer, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    match name {
        "sum" | "xor_sum" | "reduce_or" | "reduce_and" => {
            let x = l.arg(a, 0, "input", name)?;
            let axis = a.take(1, "axis");
            let keep = a.take(2, "keep_dims");
            let dtype = a.take(3, "dtype");
            l.no_more(a, name)?;
            let keep = l.const_bool(keep, false, "keep_dims")?;
            let mut x = l.number(&x, &format!("tl.{name}"))?;
            let d = l.dtype_of(x);
            let combine = match name {
                "sum" => {
                    if let Some(t) = accumulation_dtype(d, dtype) {
                        x = l.cast(x, t)?;
                    }
                    Combine::Add
                }
                _ => {
                    if !d.is_int() {
                        return l
                            .error(format!("tl.{name} needs an integer tensor, got {}", d.triton_name()));
                    }
                    match name {
                        "xor_sum" => Combine::Xor,
                        "reduce_or" => Combine::Or,
                        _ => Combine::And,
                    }
                }
            };
            let r = reduce(l, vec![x], axis, combine, keep)?;
            Ok(FValue::Tensor(r[0]))
        }
        "max" | "min" => {
            let x = l.arg(a, 0, "input", name)?;
            let axis = a.take(1, "axis");
            let indices = a.take(2, "return_indices");
            let tie_left = a.take(3, "return_indices_tie_break_left");
            let keep = a.take(4, "keep_dims");
            l.no_more(a, name)?;
            let keep = l.const_bool(keep, false, "keep_dims")?;
            let indices = l.const_bool(indices, false, "return_indices")?;
            let _ = l.const_bool(tie_left, true, "return_indices_tie_break_left")?;
            let x = promote_narrow(l, x, name)?;
            if indices {
                let (v, i) = arg_reduce(l, x, axis, name == "max", keep)?;
                return Ok(FValue::Tuple(vec![FValue::Tensor(v), FValue::Tensor(i)]));
            }
            let combine = if name == "max" { Combine::Max } else { Combine::Min };
            let r = reduce(l, vec![x], axis, combine, keep)?;
            Ok(FValue::Tensor(r[0]))
        }
        "argmax" | "argmin" => {
            let x = l.arg(a, 0, "input", name)?;
            let axis = a.take(1, "axis");
            let _tie = a.take(2, "tie_break_left");
            let keep = a.take(3, "keep_dims");
            l.no_more(a, name)?;
            let keep = l.const_bool(keep, false, "keep_dims")?;
            let x = promote_narrow(l, x, name)?;
            let (_, i) = arg_reduce(l, x, axis, name == "argmax", keep)?;
            Ok(FValue::Tensor(i))
        }
        "reduce" => {
            let x = l.arg(a, 0, "input", "tl.reduce")?;
            let axis = a.take(1, "axis");
            let f = l.arg(a, 2, "combine_fn", "tl.reduce")?;
            let keep = a.take(3, "keep_dims");
            l.no_more(a, "tl.reduce")?;
            let keep = l.const_bool(keep, false, "keep_dims")?;
            let FValue::JitFn(fname) = f else {
                return l.error("tl.reduce's combine_fn must be a @triton.jit function");
            };
            let (inputs, is_tuple) = operands(l, x, "tl.reduce")?;
            let r = reduce(l, inputs, axis, Combine::Jit(fname), keep)?;
            Ok(pack(r, is_tuple))
        }
        "cumsum" | "cumprod" => {
            let x = l.arg(a, 0, "input", name)?;
            let axis = a.take(1, "axis");
            let reverse = a.take(2, "reverse");
            let dtype = a.take(3, "dtype");
            l.no_more(a, name)?;
            let reverse = l.const_bool(reverse, false, "reverse")?;
            let mut x = l.number(&x, &format!("tl.{name}"))?;
            let d = l.dtype_of(x);
            if let Some(t) = accumulation_dtype(d, dtype) {
                x = l.cast(x, t)?;
            }
            let axis = axis.unwrap_or(FValue::int(0));
            let combine = if name == "cumsum" { Combine::Add } else { Combine::Mul };
            let r = scan(l, vec![x], axis, combine, reverse)?;
            Ok(FValue::Tensor(r[0]))
        }
        "associative_scan" => {
            let x = l.arg(a, 0, "input", "tl.associative_scan")?;
            let axis = l.arg(a, 1, "axis", "tl.associative_scan")?;
            let f = l.arg(a, 2, "combine_fn", "tl.associative_scan")?;
            let reverse = a.take(3, "reverse");
            l.no_more(a, "tl.associative_scan")?;
            let reverse = l.const_bool(reverse, false, "reverse")?;
            let FValue::JitFn(fname) = f else {
                return l.error("tl.associative_scan's combine_fn must be a @triton.jit function");
            };
            let (inputs, is_tuple) = operands(l, x, "tl.associative_scan")?;
            let r = scan(l, inputs, axis, Combine::Jit(fname), reverse)?;
            Ok(pack(r, is_tuple))
        }
        "sort" => {
            let x = l.arg(a, 0, "x", "tl.sort")?;
            let dim = a.take(1, "dim");
            let descending = a.take(2, "descending");
            l.no_more(a, "tl.sort")?;
            let x = l.number(&x, "tl.sort")?;
            let rank = l.shape_of(x).len();
            if rank == 0 {
                return l.error("tl.sort needs a tensor");
            }
            let dim = match dim {
                None | Some(FValue::Const(Const::None)) => rank as i64 - 1,
                Some(d) => wrap_axis(l, l.const_int(&d, "dim")?, rank)? as i64,
            };
            if dim != rank as i64 - 1 {
                return l.error("tl.sort only supports the last dimension");
            }
            let descending = l.const_bool(descending, false, "descending")?;
            let ty = l.ty(x);
            let attrs = Attrs::new().with("dim", Attr::Int(dim)).with("descending", Attr::Bool(descending));
            Ok(FValue::Tensor(l.b().value(Opcode::Sort, vec![x], ty, attrs)))
        }
        "topk" => {
            let x = l.arg(a, 0, "x", "tl.topk")?;
            let k = l.arg(a, 1, "k", "tl.topk")?;
            let dim = a.take(2, "dim");
            l.no_more(a, "tl.topk")?;
            let x = l.number(&x, "tl.topk")?;
            let shape = l.shape_of(x);
            if shape.is_empty() {
                return l.error("tl.topk needs a tensor");
            }
            if let Some(d) = dim {
                if !matches!(d, FValue::Const(Const::None)) {
                    let d = wrap_axis(l, l.const_int(&d, "dim")?, shape.len())?;
                    if d != shape.len() - 1 {
                        return l.error("tl.topk only supports the last dimension");
                    }
                }
            }
            let k = l.const_int(&k, "k")?;
            let n = *shape.last().unwrap() as i64;
            if k <= 0 || k > n || (k & (k - 1)) != 0 {
                return l.error(format!("tl.topk: k must be a power of 2 between 1 and {n}, got {k}"));
            }
            let mut out = shape.clone();
            *out.last_mut().unwrap() = k as u32;
            let ty = l.ty(x).with_shape(&out);
            let attrs = Attrs::new().with("k", Attr::Int(k));
            Ok(FValue::Tensor(l.b().value(Opcode::TopK, vec![x], ty, attrs)))
        }
        "histogram" => {
            let x = l.arg(a, 0, "input", "tl.histogram")?;
            let bins = l.arg(a, 1, "num_bins", "tl.histogram")?;
            let mask = a.take(2, "mask");
            l.no_more(a, "tl.histogram")?;
            let x = l.number(&x, "tl.histogram")?;
            if !l.dtype_of(x).is_int() || l.shape_of(x).len() != 1 {
                return l.error(format!(
                    "tl.histogram needs a 1-D integer tensor, got {} of shape {:?}",
                    l.elem_name(x),
                    l.shape_of(x)
                ));
            }
            let bins = l.const_int(&bins, "num_bins")?;
            if bins <= 0 || bins & (bins - 1) != 0 {
                return l.error(format!("tl.histogram: num_bins must be a power of 2, got {bins}"));
            }
            let mut operands = vec![x];
            if let Some(m) = mask.filter(|m| !matches!(m, FValue::Const(Const::None))) {
                let m = l.number(&m, "tl.histogram's mask")?;
                let m = l.cast(m, DType::I1)?;
                operands.push(l.broadcast_to(m, &l.shape_of(x))?);
            }
            let ty = Type::tensor(Elem::Scalar(DType::I32), &[bins as u32]);
            Ok(FValue::Tensor(l.b().value(Opcode::Histogram, operands, ty, Attrs::new())))
        }
        other => l.error(format!("`{other}` is not supported")),
    }
}

/// The element of a one-element tensor `x` as a scalar: a reduction that takes its first operand,
/// as Triton's `split` does for a `[2]` tensor (the IR has no other way from a tensor to a scalar).
pub fn take_first(l: &mut FnLowerer, x: Value) -> LResult<Value> {
    Ok(reduce(l, vec![x], None, Combine::First, false)?[0])
}

/// The type sums and cumulative sums accumulate in (Triton's `_pick_sum_dtype`): the requested
/// `dtype`, else 32 bits for narrower integers (and bools), else the input type (`None`).
fn accumulation_dtype(d: DType, requested: Option<FValue>) -> Option<DType> {
    match requested {
        Some(FValue::Const(Const::DType(t))) => Some(t),
        _ if d.is_bool() => Some(DType::I32),
        _ if d.is_signed_int() && d.bits() < 32 => Some(DType::I32),
        _ if d.is_unsigned_int() && d.bits() < 32 => Some(DType::U32),
        _ => None,
    }
}

/// max/min promote bf16 to f32 and types narrower than 32 bits to f32 / i32.
fn promote_narrow(l: &mut FnLowerer, x: FValue, name: &str) -> LResult<Value> {
    let x = l.number(&x, &format!("tl.{name}"))?;
    let d = l.dtype_of(x);
    if d.bits() < 32 {
        return l.cast(x, if d.is_float() { DType::F32 } else { DType::I32 });
    }
    Ok(x)
}

/// The operands of a reduction or scan with a combine function (`func`): one tensor of numbers
/// or a tuple of them.
fn operands(l: &mut FnLowerer, x: FValue, func: &str) -> LResult<(Vec<Value>, bool)> {
    match x {
        FValue::Tuple(items) if items.is_empty() => {
            l.error(format!("{func} of an empty tuple: give it a tensor, or a tuple of tensors of one shape"))
        }
        FValue::Tuple(items) => {
            let mut out = Vec::new();
            for i in items {
                out.push(l.number(&i, func)?);
            }
            Ok((out, true))
        }
        other => Ok((vec![l.number(&other, func)?], false)),
    }
}

fn pack(values: Vec<Value>, is_tuple: bool) -> FValue {
    if is_tuple {
        FValue::Tuple(values.into_iter().map(FValue::Tensor).collect())
    } else {
        FValue::Tensor(values[0])
    }
}

/// A shape for a message: `[128, 64]`, or `a scalar`.
fn shape_name(shape: &[u32]) -> String {
    if shape.is_empty() {
        "a scalar".into()
    } else {
        format!("{shape:?}")
    }
}

fn wrap_axis(l: &FnLowerer, axis: i64, rank: usize) -> LResult<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return l.error(format!("axis {axis} is out of range for a tensor of rank {rank}"));
    }
    Ok(if axis < 0 { (axis + r) as usize } else { axis as usize })
}

/// Reduces `inputs` along `axis` (None: all elements, after a flattening reshape).
fn reduce(
    l: &mut FnLowerer,
    mut inputs: Vec<Value>,
    axis: Option<FValue>,
    combine: Combine,
    keep: bool,
) -> LResult<Vec<Value>> {
    let shape = l.shape_of(inputs[0]);
    for &x in &inputs[1..] {
        if l.shape_of(x) != shape {
            return l.error(format!(
                "the operands of a reduction must have the same shape, got {} and {}",
                shape_name(&shape),
                shape_name(&l.shape_of(x))
            ));
        }
    }
    let axis = match axis {
        None | Some(FValue::Const(Const::None)) => {
            if shape.len() > 1 {
                let numel: u32 = shape.iter().product();
                for x in inputs.iter_mut() {
                    let ty = l.ty(*x).with_shape(&[numel]);
                    let attrs = Attrs::new().with("allow_reorder", Attr::Bool(true));
                    *x = l.b().value(Opcode::Reshape, vec![*x], ty, attrs);
                }
            }
            if shape.is_empty() {
                return Ok(inputs);
            }
            0
        }
        Some(a) => {
            if shape.is_empty() {
                return l.error("cannot reduce a scalar along an axis");
            }
            wrap_axis(l, l.const_int(&a, "axis")?, shape.len())?
        }
    };
    let in_shape = l.shape_of(inputs[0]);
    let mut out_shape = in_shape.clone();
    out_shape.remove(axis);
    let elem_types: Vec<DType> = inputs.iter().map(|&x| l.dtype_of(x)).collect();
    let region = combine_region(l, &elem_types, &combine, Opcode::ReduceReturn)?;
    let result_types: Vec<Type> =
        elem_types.iter().map(|&d| Type::tensor(Elem::Scalar(d), &out_shape)).collect();
    let attrs = Attrs::new().with("axis", Attr::Int(axis as i64));
    let op = l.b().op_with_regions(Opcode::Reduce, inputs, &result_types, attrs, vec![region]);
    let mut results = l.func.body.op(op).results.clone();
    if keep {
        for r in results.iter_mut() {
            *r = l.b().expand_dims(*r, axis);
        }
    }
    Ok(results)
}

fn scan(
    l: &mut FnLowerer,
    inputs: Vec<Value>,
    axis: FValue,
    combine: Combine,
    reverse: bool,
) -> LResult<Vec<Value>> {
    let shape = l.shape_of(inputs[0]);
    for &x in &inputs[1..] {
        if l.shape_of(x) != shape {
            return l.error(format!(
                "the operands of a scan must have the same shape, got {} and {}",
                shape_name(&shape),
                shape_name(&l.shape_of(x))
            ));
        }
    }
    if shape.is_empty() {
        return l.error("cannot scan a scalar");
    }
    let axis = wrap_axis(l, l.const_int(&axis, "axis")?, shape.len())?;
    let elem_types: Vec<DType> = inputs.iter().map(|&x| l.dtype_of(x)).collect();
    let region = combine_region(l, &elem_types, &combine, Opcode::ScanReturn)?;
    let result_types: Vec<Type> = inputs.iter().map(|&x| l.ty(x)).collect();
    let attrs = Attrs::new().with("axis", Attr::Int(axis as i64)).with("reverse", Attr::Bool(reverse));
    let op = l.b().op_with_regions(Opcode::Scan, inputs, &result_types, attrs, vec![region]);
    Ok(l.func.body.op(op).results.clone())
}

/// (value, index) reduction for argmax / argmin, and max/min with return_indices.
fn arg_reduce(
    l: &mut FnLowerer,
    x: Value,
    axis: Option<FValue>,
    is_max: bool,
    keep: bool,
) -> LResult<(Value, Value)> {
    let mut x = x;
    let mut shape = l.shape_of(x);
    let axis = match axis {
        None | Some(FValue::Const(Const::None)) => {
            if shape.len() > 1 {
                let numel: u32 = shape.iter().product();
                let ty = l.ty(x).with_shape(&[numel]);
                let attrs = Attrs::new().with("allow_reorder", Attr::Bool(true));
                x = l.b().value(Opcode::Reshape, vec![x], ty, attrs);
                shape = vec![numel];
            }
            FValue::int(0)
        }
        Some(a) => a,
    };
    if shape.is_empty() {
        return l.error("argmax/argmin need a tensor");
    }
    let ax = wrap_axis(l, l.const_int(&axis, "axis")?, shape.len())?;
    let n = shape[ax] as i128;
    let idx = super::call(l, "arange", CallArgs::positional(vec![FValue::int(0), FValue::int(n)]))?;
    let mut idx = l.to_value(&idx)?;
    for d in 0..shape.len() {
        if d != ax {
            idx = l.b().expand_dims(idx, d);
        }
    }
    let idx = l.broadcast_to(idx, &shape)?;
    let r = reduce(l, vec![x, idx], Some(FValue::int(ax as i128)), Combine::ArgMax(is_max), keep)?;
    Ok((r[0], r[1]))
}

/// Builds a combine region with two scalar arguments per element type.
fn combine_region(
    l: &mut FnLowerer,
    elems: &[DType],
    combine: &Combine,
    terminator: Opcode,
) -> LResult<Block> {
    let mut arg_types: Vec<Type> = elems.iter().map(|&d| Type::scalar(d)).collect();
    arg_types.extend(elems.iter().map(|&d| Type::scalar(d)));
    let region = l.func.body.new_block(&arg_types);
    let args = l.func.body.blocks[region].args.clone();
    let n = elems.len();
    let saved_block = l.block;
    let saved_vars = l.vars.clone();
    l.block = region;
    let result: LResult<Vec<Value>> = (|| {
        let (lhs, rhs) = (&args[..n], &args[n..]);
        let simple = |l: &mut FnLowerer, op: BinOp| -> LResult<Vec<Value>> {
            let r = l.binary(op, FValue::Tensor(lhs[0]), FValue::Tensor(rhs[0]))?;
            Ok(vec![l.to_value(&r)?])
        };
        match combine {
            Combine::Add => simple(l, BinOp::Add),
            Combine::First => Ok(lhs.to_vec()),
            Combine::Mul => simple(l, BinOp::Mul),
            Combine::Xor => simple(l, BinOp::Xor),
            Combine::Or => simple(l, BinOp::Or),
            Combine::And => simple(l, BinOp::And),
            Combine::Max | Combine::Min => {
                let name = if matches!(combine, Combine::Max) { "maximum" } else { "minimum" };
                let r = super::call(
                    l,
                    name,
                    CallArgs::positional(vec![FValue::Tensor(lhs[0]), FValue::Tensor(rhs[0])]),
                )?;
                Ok(vec![l.to_value(&r)?])
            }
            Combine::ArgMax(is_max) => {
                let (v1, i1, v2, i2) = (lhs[0], lhs[1], rhs[0], rhs[1]);
                let eq = l.compare(CmpOp::Eq, FValue::Tensor(v1), FValue::Tensor(v2))?;
                let lt_idx = l.compare(CmpOp::Lt, FValue::Tensor(i1), FValue::Tensor(i2))?;
                let tie = l.binary(BinOp::And, eq, lt_idx)?;
                let cmp = if *is_max { CmpOp::Gt } else { CmpOp::Lt };
                let better = l.compare(cmp, FValue::Tensor(v1), FValue::Tensor(v2))?;
                let pick = l.binary(BinOp::Or, better, tie)?;
                let pick = l.to_value(&pick)?;
                let v = l.b().select(pick, v1, v2);
                let i = l.b().select(pick, i1, i2);
                Ok(vec![v, i])
            }
            Combine::Jit(name) => {
                let mut call_args: Vec<FValue> = lhs.iter().map(|&v| FValue::Tensor(v)).collect();
                call_args.extend(rhs.iter().map(|&v| FValue::Tensor(v)));
                let r = l.call_jit(name, call_args, Vec::new())?;
                let mut flat = Vec::new();
                let r = match r {
                    FValue::Const(c) => FValue::Tensor(l.scalar_const(&c, elems[0])?),
                    other => other,
                };
                flatten(&r, &mut flat);
                if flat.len() != n {
                    return l.error(format!(
                        "the combine function `{name}` returns {} values for {n} operands",
                        flat.len()
                    ));
                }
                let mut out = Vec::new();
                for (v, &d) in flat.into_iter().zip(elems) {
                    if !l.ty(v).shape().is_empty() {
                        return l.error(format!("the combine function `{name}` must return scalars"));
                    }
                    out.push(l.cast(v, d)?);
                }
                Ok(out)
            }
        }
    })();
    let values = result;
    l.vars = saved_vars;
    let values = match values {
        Ok(v) => v,
        Err(e) => {
            l.block = saved_block;
            return Err(e);
        }
    };
    l.b().op(terminator, values, &[], Attrs::new());
    l.block = saved_block;
    Ok(region)
}
