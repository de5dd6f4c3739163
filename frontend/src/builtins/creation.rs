//! Tensor construction, program geometry, compile-time helpers, hints, casts and debugging:
//! `program_id`, `arange`, `zeros`, `full`, `cdiv`, `multiple_of`, `static_assert`,
//! `device_print`, `cast`, `pointer_type`, ...

use trident_midend::ir::{Attr, Attrs, DType, Elem, Opcode, Type, ValueDef};

use super::CallArgs;
use crate::lower::semantic::{const_dtype, BinOp};
use crate::lower::{FnLowerer, LResult};
use crate::value::{Const, FValue};

pub fn call(l: &mut FnLowerer, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    match name {
        "constexpr" => {
            let v = l.arg(a, 0, "value", "tl.constexpr")?;
            l.no_more(a, "tl.constexpr")?;
            if matches!(v, FValue::Tensor(_)) {
                return l.error("tl.constexpr needs a compile-time value");
            }
            Ok(v)
        }
        "program_id" | "num_programs" => {
            let axis = l.arg(a, 0, "axis", name)?;
            l.no_more(a, name)?;
            let axis = l.const_int(&axis, "the axis")?;
            if !(0..3).contains(&axis) {
                return l.error(format!("tl.{name}: axis must be 0, 1 or 2, got {axis}"));
            }
            let op = if name == "program_id" { Opcode::GetProgramId } else { Opcode::GetNumPrograms };
            let attrs = Attrs::new().with("axis", Attr::Int(axis));
            Ok(FValue::Tensor(l.b().value(op, vec![], Type::scalar(DType::I32), attrs)))
        }
        "arange" => {
            let start = l.arg(a, 0, "start", "tl.arange")?;
            let end = l.arg(a, 1, "end", "tl.arange")?;
            l.no_more(a, "tl.arange")?;
            let start = l.const_int(&start, "tl.arange's start")?;
            let end = l.const_int(&end, "tl.arange's end")?;
            // The bounds are checked first, as Triton does: `end - start` of two arbitrary i64
            // constants can overflow (and wrap to a small power of two in release builds).
            let int32 = i32::MIN as i64..=i32::MAX as i64;
            if !int32.contains(&start) || !int32.contains(&end) {
                return l.error(format!("tl.arange({start}, {end}): the bounds must fit in int32"));
            }
            let range = end - start;
            if range <= 0 {
                return l.error(format!("tl.arange({start}, {end}): end must be greater than start"));
            }
            if range & (range - 1) != 0 {
                return l.error(format!(
                    "tl.arange({start}, {end}): the length {range} is not a power of 2; Triton blocks must have power-of-2 sizes"
                ));
            }
            if range > 1 << 20 {
                return l.error(format!("tl.arange({start}, {end}) has more than 1048576 elements"));
            }
            let ty = Type::tensor(Elem::Scalar(DType::I32), &[range as u32]);
            let attrs = Attrs::new().with("start", Attr::Int(start)).with("end", Attr::Int(end));
            Ok(FValue::Tensor(l.b().value(Opcode::MakeRange, vec![], ty, attrs)))
        }
        "zeros" | "full" => {
            let shape = l.arg(a, 0, "shape", name)?;
            let (value, dtype) = if name == "zeros" {
                (FValue::int(0), l.arg(a, 1, "dtype", name)?)
            } else {
                (l.arg(a, 1, "value", name)?, l.arg(a, 2, "dtype", name)?)
            };
            l.no_more(a, name)?;
            let shape = l.const_shape(&shape, "the shape")?;
            let dtype = l.const_dtype(&dtype, "the dtype")?;
            full(l, &shape, value, dtype)
        }
        "zeros_like" | "full_like" => {
            let x = l.arg(a, 0, "input", name)?;
            let value = if name == "zeros_like" { FValue::int(0) } else { l.arg(a, 1, "value", name)? };
            let dtype = a.take(2, "dtype");
            l.no_more(a, name)?;
            let x = l.to_value(&x)?;
            let ty = l.ty(x);
            let dtype = match dtype {
                Some(FValue::Const(Const::DType(d))) => d,
                _ => ty.dtype(),
            };
            full(l, ty.shape(), value, dtype)
        }
        "cdiv" => {
            let x = l.arg(a, 0, "x", "cdiv")?;
            let div = l.arg(a, 1, "div", "cdiv")?;
            l.no_more(a, "cdiv")?;
            let sum = l.binary(BinOp::Add, x, div.clone())?;
            let sum = l.binary(BinOp::Sub, sum, FValue::int(1))?;
            l.binary(BinOp::FloorDiv, sum, div)
        }
        "swizzle2d" => {
            let mut take = |index, name| l.arg(a, index, name, "tl.swizzle2d");
            let (i, j) = (take(0, "i")?, take(1, "j")?);
            let (size_i, size_j, size_g) = (take(2, "size_i")?, take(3, "size_j")?, take(4, "size_g")?);
            l.no_more(a, "tl.swizzle2d")?;
            swizzle2d(l, i, j, size_i, size_j, size_g)
        }
        "next_power_of_2" => {
            let n = l.arg(a, 0, "n", "next_power_of_2")?;
            let n = l.const_int(&n, "next_power_of_2's argument")?;
            let p = if n <= 1 { 1 } else { (n as u64).next_power_of_two() as i128 };
            Ok(FValue::int(p))
        }
        "multiple_of" | "max_contiguous" | "max_constancy" => {
            let x = l.arg(a, 0, "input", name)?;
            let values = l.arg(a, 1, "values", name)?;
            l.no_more(a, name)?;
            hint(l, name, x, values)
        }
        "assume" => {
            let _ = l.arg(a, 0, "cond", "tl.assume")?;
            Ok(FValue::Const(Const::None))
        }
        "static_assert" => {
            let cond = l.arg(a, 0, "cond", "tl.static_assert")?;
            let msg = a.take(1, "msg");
            l.no_more(a, "tl.static_assert")?;
            let FValue::Const(c) = cond else {
                return l.error("tl.static_assert needs a compile-time condition; use tl.device_assert for runtime checks");
            };
            if !c.truthy() {
                let msg = match msg {
                    Some(FValue::Const(Const::Str(s))) if !s.is_empty() => s,
                    _ => String::new(),
                };
                return if msg.is_empty() {
                    l.error("static assertion failed")
                } else {
                    l.error(format!("static assertion failed: {msg}"))
                };
            }
            Ok(FValue::Const(Const::None))
        }
        "static_print" => {
            let items = a.take_rest(0);
            let text: Vec<String> = items.iter().map(crate::lower::expr::describe).collect();
            eprintln!("{}", text.join(" "));
            Ok(FValue::Const(Const::None))
        }
        "device_print" => {
            let prefix = l.arg(a, 0, "prefix", "tl.device_print")?;
            let hex = a.take_kw("hex");
            let rest = a.take_rest(1);
            l.no_more(a, "tl.device_print")?;
            let prefix = match prefix {
                FValue::Const(Const::Str(s)) => s,
                _ => return l.error("tl.device_print's first argument must be a string prefix"),
            };
            let hex = l.const_bool(hex, false, "hex")?;
            let mut operands = Vec::new();
            for v in rest {
                operands.push(l.to_value(&v)?);
            }
            let attrs = Attrs::new().with("prefix", Attr::Str(prefix)).with("hex", Attr::Bool(hex));
            l.b().op(Opcode::Print, operands, &[], attrs);
            Ok(FValue::Const(Const::None))
        }
        "device_assert" => {
            let cond = l.arg(a, 0, "cond", "tl.device_assert")?;
            let msg = a.take(1, "msg");
            let mask = a.take(2, "mask");
            l.no_more(a, "tl.device_assert")?;
            let msg = l.const_str(msg, "the message")?;
            let cond = l.number(&cond, "tl.device_assert")?;
            let mut c = l.cast(cond, DType::I1)?;
            // Lanes the mask turns off hold by definition: the assertion is `cond | ~mask`.
            if let Some(mask) = mask.filter(|m| !matches!(m, FValue::Const(Const::None))) {
                let off = l.logical_not(mask)?;
                let held = l.binary(BinOp::Or, FValue::Tensor(c), off)?;
                c = l.to_value(&held)?;
            }
            l.b().op(Opcode::Assert, vec![c], &[], Attrs::new().with("message", Attr::Str(msg)));
            Ok(FValue::Const(Const::None))
        }
        "debug_barrier" => {
            l.no_more(a, "tl.debug_barrier")?;
            l.b().op(Opcode::Barrier, vec![], &[], Attrs::new());
            Ok(FValue::Const(Const::None))
        }
        "pointer_type" => {
            let d = l.arg(a, 0, "element_ty", "tl.pointer_type")?;
            let _space = a.take(1, "address_space");
            l.no_more(a, "tl.pointer_type")?;
            let d = l.const_dtype(&d, "the pointee type")?;
            Ok(FValue::Const(Const::PtrType(d)))
        }
        "to_tensor" => {
            let x = l.arg(a, 0, "x", "tl.to_tensor")?;
            Ok(FValue::Tensor(l.to_value(&x)?))
        }
        "cast" => {
            let x = l.arg(a, 0, "input", "cast")?;
            let dtype = l.arg(a, 1, "dtype", "cast")?;
            let _rounding = a.take(2, "fp_downcast_rounding");
            let bitcast = a.take(3, "bitcast");
            l.no_more(a, "cast")?;
            let bitcast = l.const_bool(bitcast, false, "bitcast")?;
            cast(l, x, dtype, bitcast)
        }
        other => l.error(format!("`{other}` is not supported")),
    }
}

/// `tl.full(shape, value, dtype)`; a compile-time value becomes a splat constant.
pub fn full(l: &mut FnLowerer, shape: &[u32], value: FValue, dtype: DType) -> LResult<FValue> {
    l.check_block_shape(shape)?;
    let ty = Type::tensor(Elem::Scalar(dtype), shape);
    match &value {
        FValue::Const(c) => {
            let scalar = l.scalar_const(c, dtype)?;
            if shape.is_empty() {
                return Ok(FValue::Tensor(scalar));
            }
            // Fold the scalar constant into a tensor constant directly.
            let attr =
                l.func.body.op(l.func.body.def_op(scalar).unwrap()).attrs.get("value").cloned().unwrap();
            let op = l.func.body.def_op(scalar).unwrap();
            l.func.body.detach_op(op);
            Ok(FValue::Tensor(l.b().constant(ty, attr)))
        }
        _ => {
            let v = l.to_value(&value)?;
            if l.ty(v).is_tensor() {
                return l.error("tl.full's value must be a scalar");
            }
            let v = l.cast(v, dtype)?;
            Ok(FValue::Tensor(l.broadcast_to(v, shape)?))
        }
    }
}

/// `x.to(dtype)` / `tl.cast`: value casts, bitcasts and pointer casts.
pub fn cast(l: &mut FnLowerer, x: FValue, dtype: FValue, bitcast: bool) -> LResult<FValue> {
    match dtype {
        FValue::Const(Const::DType(d)) => {
            if let FValue::Const(c) = &x {
                // Casting a Python scalar: materialize with its default type first.
                if const_dtype(c).is_none() {
                    return l.error(format!("cannot cast {}", c.describe()));
                }
            }
            let v = l.to_value(&x)?;
            if l.ty(v).is_ptr() {
                if bitcast || d != DType::I64 {
                    return l
                        .error("cast a pointer with tl.pointer_type(...), or to tl.int64 for its address");
                }
                let ty = l.ty(v).with_elem(Elem::Scalar(DType::I64));
                return Ok(FValue::Tensor(l.b().cast(Opcode::PtrToInt, v, ty)));
            }
            let r = if bitcast { l.bitcast(v, d)? } else { l.cast(v, d)? };
            Ok(FValue::Tensor(r))
        }
        FValue::Const(Const::PtrType(d)) => {
            let v = l.to_value(&x)?;
            let ty = l.ty(v);
            if ty.is_ptr() {
                if ty.dtype() == d {
                    return Ok(FValue::Tensor(v));
                }
                let out = ty.with_elem(Elem::Ptr(d));
                return Ok(FValue::Tensor(l.b().cast(Opcode::Bitcast, v, out)));
            }
            if ty.dtype() == DType::I64 || ty.dtype() == DType::U64 {
                let out = ty.with_elem(Elem::Ptr(d));
                return Ok(FValue::Tensor(l.b().cast(Opcode::IntToPtr, v, out)));
            }
            l.error(format!("cannot cast {} to a pointer (only pointers and int64 addresses can)", ty))
        }
        other => l.not_a_dtype(
            &other,
            "the target of a cast must be a dtype such as tl.float16 or tl.pointer_type(...)".to_string(),
        ),
    }
}

/// `tl.multiple_of` and friends: attach the hint to the op that defines the value (or, for a
/// block argument, to the op owning the block as `<hint>_arg<N>`; for a kernel parameter, to its
/// argument attributes), like Triton does.
fn hint(l: &mut FnLowerer, name: &str, x: FValue, values: FValue) -> LResult<FValue> {
    let v = l.to_value(&x)?;
    let items = match values {
        FValue::Tuple(t) => t,
        other => vec![other],
    };
    let mut ints = Vec::new();
    for i in &items {
        ints.push(l.const_int(i, "a hint value")?);
    }
    let rank = l.shape_of(v).len().max(1);
    if ints.len() != rank {
        return l.error(format!("tl.{name}: {} values given for a tensor of rank {rank}", ints.len()));
    }
    let key = match name {
        "multiple_of" => "tt.divisibility",
        "max_contiguous" => "tt.contiguity",
        _ => "tt.constancy",
    };
    let attr = Attr::Ints(ints);
    match l.func.body.values[v].def {
        ValueDef::Result(op, _) => l.func.body.ops[op].attrs.set(key, attr),
        ValueDef::Arg(block, index) if block == l.func.entry => {
            if let Some(attrs) = l.func.arg_attrs.get_mut(index as usize) {
                attrs.set(key, attr);
            }
        }
        ValueDef::Arg(block, index) => match l.func.body.blocks[block].parent_op {
            Some(owner) => l.func.body.ops[owner].attrs.set(&format!("{key}_arg{index}"), attr),
            // The region's op is created after its body is lowered: keep the hint until then.
            None => l.pending_hints.push((block, format!("{key}_arg{index}"), attr)),
        },
    }
    Ok(FValue::Tensor(v))
}

/// `tl.swizzle2d(i, j, size_i, size_j, size_g)`: the row-major position `(i, j)` of a
/// `size_i x size_j` grid renumbered so that the grid is walked in bands of `size_g` rows (the
/// last band may have fewer), each band column by column: the `n`-th position in row-major order
/// becomes the `n`-th in that order. (The grouped program order of Triton's matmul tutorial.)
fn swizzle2d(
    l: &mut FnLowerer,
    i: FValue,
    j: FValue,
    size_i: FValue,
    size_j: FValue,
    size_g: FValue,
) -> LResult<FValue> {
    // n, the row-major index; the band it falls in and that band's first row and height.
    let n = l.binary(BinOp::Mul, i, size_j.clone())?;
    let n = l.binary(BinOp::Add, n, j)?;
    let band_size = l.binary(BinOp::Mul, size_g.clone(), size_j)?;
    let band = l.binary(BinOp::FloorDiv, n.clone(), band_size.clone())?;
    let first_row = l.binary(BinOp::Mul, band, size_g.clone())?;
    let rows_left = l.binary(BinOp::Sub, size_i, first_row.clone())?;
    let height = super::call(l, "minimum", CallArgs::positional(vec![rows_left, size_g]))?;
    // Within the band, column by column.
    let within = l.binary(BinOp::Mod, n, band_size)?;
    let row = l.binary(BinOp::Mod, within.clone(), height.clone())?;
    let new_i = l.binary(BinOp::Add, first_row, row)?;
    let new_j = l.binary(BinOp::FloorDiv, within, height)?;
    Ok(FValue::Tuple(vec![new_i, new_j]))
}
