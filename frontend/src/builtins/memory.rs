//! Memory: `tl.load` / `tl.store` (pointer tensors with masks, and block pointers lowered to
//! pointer arithmetic plus boundary masks), atomics (with Triton's float max/min through integer
//! atomics), and tensor descriptors (`tl.make_tensor_descriptor`, `desc.load`, `desc.store`).

use trident_midend::ir::{Attr, Attrs, DType, Elem, Opcode, Type, Value};

use super::CallArgs;
use crate::lower::semantic::{BinOp, CmpOp};
use crate::lower::{FnLowerer, LResult};
use crate::value::{BlockPtr, Const, FValue};

pub fn call(l: &mut FnLowerer, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    match name {
        "load" => {
            let ptr = l.arg(a, 0, "pointer", "tl.load")?;
            let mask = a.take(1, "mask");
            let other = a.take(2, "other");
            let boundary = a.take(3, "boundary_check");
            let padding = a.take(4, "padding_option");
            let cache = a.take(5, "cache_modifier");
            let evict = a.take(6, "eviction_policy");
            let volatile = a.take(7, "volatile");
            l.no_more(a, "tl.load")?;
            let mut attrs = cache_attrs(l, cache, evict)?;
            if l.const_bool(volatile, false, "volatile")? {
                attrs.set("volatile", Attr::Bool(true));
            }
            if let FValue::BlockPtr(bp) = ptr {
                let padding = l.const_str(padding, "padding_option")?;
                return block_ptr_load(l, &bp, boundary, &padding, attrs);
            }
            load(l, ptr, none_to_option(mask), none_to_option(other), attrs)
        }
        "store" => {
            let ptr = l.arg(a, 0, "pointer", "tl.store")?;
            let value = l.arg(a, 1, "value", "tl.store")?;
            let mask = a.take(2, "mask");
            let boundary = a.take(3, "boundary_check");
            let cache = a.take(4, "cache_modifier");
            let evict = a.take(5, "eviction_policy");
            l.no_more(a, "tl.store")?;
            let attrs = cache_attrs(l, cache, evict)?;
            if let FValue::BlockPtr(bp) = ptr {
                let (ptrs, mask) = block_ptr_addresses(l, &bp, boundary)?;
                return store(l, FValue::Tensor(ptrs), value, mask.map(FValue::Tensor), attrs);
            }
            store(l, ptr, value, none_to_option(mask), attrs)
        }
        "atomic_add" | "atomic_max" | "atomic_min" | "atomic_and" | "atomic_or" | "atomic_xor"
        | "atomic_xchg" => {
            let ptr = l.arg(a, 0, "pointer", name)?;
            let val = l.arg(a, 1, "val", name)?;
            let mask = a.take(2, "mask");
            let sem = a.take(3, "sem");
            let scope = a.take(4, "scope");
            l.no_more(a, name)?;
            let sem = l.const_str(sem, "sem")?;
            let scope = l.const_str(scope, "scope")?;
            atomic_rmw(l, &name["atomic_".len()..], ptr, val, none_to_option(mask), &sem, &scope)
        }
        "atomic_cas" => {
            let ptr = l.arg(a, 0, "pointer", name)?;
            let cmp = l.arg(a, 1, "cmp", name)?;
            let val = l.arg(a, 2, "val", name)?;
            let sem = a.take(3, "sem");
            let scope = a.take(4, "scope");
            l.no_more(a, name)?;
            let sem = l.const_str(sem, "sem")?;
            let scope = l.const_str(scope, "scope")?;
            atomic_cas(l, ptr, cmp, val, &sem, &scope)
        }
        "make_block_ptr" => {
            let base = l.arg(a, 0, "base", name)?;
            let shape = l.arg(a, 1, "shape", name)?;
            let strides = l.arg(a, 2, "strides", name)?;
            let offsets = l.arg(a, 3, "offsets", name)?;
            let block_shape = l.arg(a, 4, "block_shape", name)?;
            let order = l.arg(a, 5, "order", name)?;
            l.no_more(a, name)?;
            make_block_ptr(l, base, shape, strides, offsets, block_shape, order)
        }
        "advance" => {
            let base = l.arg(a, 0, "base", name)?;
            let offsets = l.arg(a, 1, "offsets", name)?;
            l.no_more(a, name)?;
            let FValue::BlockPtr(mut bp) = base else {
                return l.error("tl.advance needs a block pointer made by tl.make_block_ptr");
            };
            let deltas = tuple_items(offsets);
            if deltas.len() != bp.offsets.len() {
                return l.error(format!(
                    "tl.advance: {} offsets for a rank-{} block pointer",
                    deltas.len(),
                    bp.offsets.len()
                ));
            }
            for (i, d) in deltas.into_iter().enumerate() {
                let d = FValue::Tensor(l.int_scalar(&d, "the offsets of tl.advance")?);
                let sum = l.binary(BinOp::Add, FValue::Tensor(bp.offsets[i]), d)?;
                let v = l.to_value(&sum)?;
                bp.offsets[i] = l.cast(v, DType::I32)?;
            }
            Ok(FValue::BlockPtr(bp))
        }
        "make_tensor_descriptor" => {
            let base = l.arg(a, 0, "base", name)?;
            let shape = l.arg(a, 1, "shape", name)?;
            let strides = l.arg(a, 2, "strides", name)?;
            let block_shape = l.arg(a, 3, "block_shape", name)?;
            let padding = a.take(4, "padding_option");
            l.no_more(a, name)?;
            let padding = l.const_str(padding, "padding_option")?;
            make_descriptor(l, base, shape, strides, block_shape, &padding)
        }
        "load_tensor_descriptor" | "store_tensor_descriptor" => {
            let desc = l.arg(a, 0, "desc", name)?;
            let desc = match desc {
                FValue::Tensor(d) if l.ty(d).is_desc() => d,
                other => {
                    let got = match &other {
                        FValue::Tensor(x) => l.elem_name(*x),
                        other => crate::lower::expr::describe(other),
                    };
                    return l.error(format!(
                        "tl.{name} needs a tensor descriptor (from tl.make_tensor_descriptor) as `desc`, got {got}"
                    ));
                }
            };
            let method = if name.starts_with("load") { "load" } else { "store" };
            let mut rest = CallArgs { args: a.take_rest(1), kwargs: std::mem::take(&mut a.kwargs) };
            desc_method(l, desc, method, &mut rest)
        }
        other => l.error(format!("`{other}` is not supported")),
    }
}

/// The `cache` / `evict` attributes of a load or store from its keyword arguments.
fn cache_attrs(l: &FnLowerer, cache: Option<FValue>, evict: Option<FValue>) -> LResult<Attrs> {
    let mut attrs = Attrs::new();
    let cache = l.const_str(cache, "cache_modifier")?;
    let evict = l.const_str(evict, "eviction_policy")?;
    if !cache.is_empty() {
        attrs.set("cache", Attr::Str(cache));
    }
    if !evict.is_empty() {
        attrs.set("evict", Attr::Str(evict));
    }
    Ok(attrs)
}

fn none_to_option(v: Option<FValue>) -> Option<FValue> {
    match v {
        Some(FValue::Const(Const::None)) | None => None,
        other => other,
    }
}

fn tuple_items(v: FValue) -> Vec<FValue> {
    match v {
        FValue::Tuple(t) => t,
        other => vec![other],
    }
}

/// Checks that `v` is a pointer (scalar or tensor) and returns it.
fn expect_pointer(l: &mut FnLowerer, v: &FValue, func: &str) -> LResult<Value> {
    let describe = |l: &FnLowerer, v: &FValue| match v {
        FValue::Tensor(x) => format!("a value of type {}", l.ty(*x)),
        other => crate::lower::expr::describe(other),
    };
    match v {
        FValue::Tensor(x) if l.ty(*x).is_ptr() => Ok(*x),
        other => {
            let d = describe(l, other);
            l.error(format!("{func} expects a pointer (or a tensor of pointers) as its address, got {d}"))
        }
    }
}

/// Broadcasts a mask to the pointer's shape and checks it is boolean.
fn broadcast_mask(l: &mut FnLowerer, ptr: Value, mask: FValue, func: &str) -> LResult<(Value, Value)> {
    let m = l.to_value(&mask)?;
    if l.number_dtype(m) != Some(DType::I1) {
        return l.error(format!("{func}: the mask must be boolean (int1), got {}", l.ty(m)));
    }
    l.broadcast_pair(ptr, m)
}

/// `tl.load(ptr, mask, other)` on pointers.
pub fn load(
    l: &mut FnLowerer,
    ptr: FValue,
    mask: Option<FValue>,
    other: Option<FValue>,
    attrs: Attrs,
) -> LResult<FValue> {
    let mut p = expect_pointer(l, &ptr, "tl.load")?;
    if other.is_some() && mask.is_none() {
        return l.error("tl.load: `other` cannot be given without `mask`");
    }
    let mut operands = Vec::new();
    let mut m = None;
    if let Some(mask) = mask {
        let (p2, m2) = broadcast_mask(l, p, mask, "tl.load")?;
        p = p2;
        m = Some(m2);
    }
    let elem = l.dtype_of(p);
    let is_bool = elem == DType::I1;
    let load_elem = if is_bool { DType::I8 } else { elem };
    if is_bool {
        let ty = l.ty(p).with_elem(Elem::Ptr(DType::I8));
        p = l.b().cast(Opcode::Bitcast, p, ty);
    }
    operands.push(p);
    if let Some(m) = m {
        let m = l.broadcast_to(m, &l.shape_of(p))?;
        operands.push(m);
        if let Some(o) = other {
            let o = l.to_value(&o)?;
            let o = l.cast(o, load_elem)?;
            let o = l.broadcast_to(o, &l.shape_of(p))?;
            operands.push(o);
        }
    }
    let ty = l.ty(p).with_elem(Elem::Scalar(load_elem));
    let mut r = l.b().value(Opcode::Load, operands, ty, attrs);
    if is_bool {
        r = l.cast(r, DType::I1)?;
    }
    Ok(FValue::Tensor(r))
}

/// `tl.store(ptr, value, mask)` on pointers.
pub fn store(
    l: &mut FnLowerer,
    ptr: FValue,
    value: FValue,
    mask: Option<FValue>,
    attrs: Attrs,
) -> LResult<FValue> {
    let p = expect_pointer(l, &ptr, "tl.store")?;
    let v = l.to_value(&value)?;
    if l.ty(v).is_ptr() {
        return l.error("tl.store cannot store pointers");
    }
    let (mut p, v) = l.broadcast_pair(p, v)?;
    let elem = l.dtype_of(p);
    let store_elem = if elem == DType::I1 { DType::I8 } else { elem };
    let v = l.cast(v, store_elem)?;
    if elem == DType::I1 {
        let ty = l.ty(p).with_elem(Elem::Ptr(DType::I8));
        p = l.b().cast(Opcode::Bitcast, p, ty);
    }
    let mut operands = vec![p, v];
    if let Some(mask) = mask {
        let m = l.to_value(&mask)?;
        if l.number_dtype(m) != Some(DType::I1) {
            return l.error(format!("tl.store: the mask must be boolean (int1), got {}", l.ty(m)));
        }
        let shape = l.shape_of(p);
        if l.shape_of(m).len() > shape.len() || l.broadcast_shape(&l.shape_of(m), &shape)? != shape {
            return l.error(format!(
                "tl.store: the mask's shape {:?} does not broadcast to the pointer's shape {:?}",
                l.shape_of(m),
                shape
            ));
        }
        operands.push(l.broadcast_to(m, &shape)?);
    }
    l.b().op(Opcode::Store, operands, &[], attrs);
    Ok(FValue::Const(Const::None))
}

/// Triton's `atom_red_typechecking_impl`: pointer, value cast to the element type, a mask.
fn atomic_operands(
    l: &mut FnLowerer,
    func: &str,
    ptr: FValue,
    val: FValue,
    mask: Option<FValue>,
) -> LResult<(Value, Value, Value)> {
    let p = expect_pointer(l, &ptr, func)?;
    let v = l.to_value(&val)?;
    let (p, v) = l.broadcast_pair(p, v)?;
    let elem = l.dtype_of(p);
    let v = l.cast(v, elem)?;
    let shape = l.shape_of(p);
    let m = match mask {
        Some(m) => {
            let m = l.to_value(&m)?;
            if l.number_dtype(m) != Some(DType::I1) {
                return l.error(format!("{func}: the mask must be boolean (int1), got {}", l.ty(m)));
            }
            l.broadcast_to(m, &shape)?
        }
        None => {
            let t = l.b().const_int(DType::I1, 1);
            l.broadcast_to(t, &shape)?
        }
    };
    Ok((p, v, m))
}

fn rmw(l: &mut FnLowerer, op: &str, p: Value, v: Value, m: Value, sem: &str, scope: &str) -> Value {
    let attrs = Attrs::new()
        .with("atomic_rmw_op", Attr::Str(op.into()))
        .with("sem", Attr::Str(if sem.is_empty() { "acq_rel".into() } else { sem.into() }))
        .with("scope", Attr::Str(if scope.is_empty() { "gpu".into() } else { scope.into() }));
    let ty = l.ty(v);
    l.b().value(Opcode::AtomicRmw, vec![p, v, m], ty, attrs)
}

fn atomic_rmw(
    l: &mut FnLowerer,
    kind: &str,
    ptr: FValue,
    val: FValue,
    mask: Option<FValue>,
    sem: &str,
    scope: &str,
) -> LResult<FValue> {
    let func = format!("tl.atomic_{kind}");
    let (p, v, m) = atomic_operands(l, &func, ptr, val, mask)?;
    let elem = l.dtype_of(p);
    if elem == DType::I1 || elem == DType::I8 || elem == DType::U8 || (elem == DType::F16 && kind != "add") {
        return l.error(format!("{func} does not support {} elements", elem.triton_name()));
    }
    let op = match kind {
        "add" => {
            if elem.is_float() {
                "fadd"
            } else {
                "add"
            }
        }
        "max" | "min" if elem.is_float() => {
            if elem != DType::F32 && elem != DType::F64 {
                return l.error(format!(
                    "{func} supports float32 and float64 floats, got {}",
                    elem.triton_name()
                ));
            }
            return float_minmax(l, kind == "max", p, v, m, sem, scope);
        }
        "max" => {
            if elem.is_unsigned_int() {
                "umax"
            } else {
                "max"
            }
        }
        "min" => {
            if elem.is_unsigned_int() {
                "umin"
            } else {
                "min"
            }
        }
        "and" | "or" | "xor" => {
            if !elem.is_int() {
                return l.error(format!("{func} needs integer elements"));
            }
            kind
        }
        _ => "xchg",
    };
    Ok(FValue::Tensor(rmw(l, op, p, v, m, sem, scope)))
}

/// Float atomic max/min the way Triton does it: a non-negative value uses a signed-integer max
/// (min: unsigned min) on the bits, a negative one the unsigned min (min: signed max).
fn float_minmax(
    l: &mut FnLowerer,
    is_max: bool,
    p: Value,
    v: Value,
    m: Value,
    sem: &str,
    scope: &str,
) -> LResult<FValue> {
    let elem = l.dtype_of(p);
    let (int_ty, uint_ty) =
        if elem == DType::F32 { (DType::I32, DType::U32) } else { (DType::I64, DType::U64) };
    let pt = l.ty(p);
    let i_ptr = l.b().cast(Opcode::Bitcast, p, pt.with_elem(Elem::Ptr(int_ty)));
    let u_ptr = l.b().cast(Opcode::Bitcast, p, pt.with_elem(Elem::Ptr(uint_ty)));
    let i_val = l.bitcast(v, int_ty)?;
    let u_val = l.bitcast(v, uint_ty)?;
    let zero = FValue::Const(Const::Float(0.0));
    let pos = l.compare(CmpOp::Ge, FValue::Tensor(v), zero.clone())?;
    let neg = l.compare(CmpOp::Lt, FValue::Tensor(v), zero)?;
    let pos_mask = l.binary(BinOp::And, FValue::Tensor(m), pos.clone())?;
    let neg_mask = l.binary(BinOp::And, FValue::Tensor(m), neg)?;
    let (pos_mask, neg_mask) = (l.to_value(&pos_mask)?, l.to_value(&neg_mask)?);
    let (pos_op, neg_op) = if is_max { ("max", "umin") } else { ("min", "umax") };
    let pos_old = rmw(l, pos_op, i_ptr, i_val, pos_mask, sem, scope);
    let neg_old = rmw(l, neg_op, u_ptr, u_val, neg_mask, sem, scope);
    let neg_old = l.bitcast(neg_old, int_ty)?;
    let pos = l.to_value(&pos)?;
    let old = l.b().select(pos, pos_old, neg_old);
    Ok(FValue::Tensor(l.bitcast(old, elem)?))
}

fn atomic_cas(
    l: &mut FnLowerer,
    ptr: FValue,
    cmp: FValue,
    val: FValue,
    sem: &str,
    scope: &str,
) -> LResult<FValue> {
    let p = expect_pointer(l, &ptr, "tl.atomic_cas")?;
    let elem = l.dtype_of(p);
    if ![16, 32, 64].contains(&elem.bits()) {
        return l
            .error(format!("tl.atomic_cas supports 16, 32 and 64-bit elements, got {}", elem.triton_name()));
    }
    let c = l.to_value(&cmp)?;
    let v = l.to_value(&val)?;
    let (p, c) = l.broadcast_pair(p, c)?;
    let (p, v) = l.broadcast_pair(p, v)?;
    let c = l.broadcast_to(c, &l.shape_of(p))?;
    let c = l.cast(c, elem)?;
    let v = l.cast(v, elem)?;
    let attrs = Attrs::new()
        .with("sem", Attr::Str(if sem.is_empty() { "acq_rel".into() } else { sem.into() }))
        .with("scope", Attr::Str(if scope.is_empty() { "gpu".into() } else { scope.into() }));
    let ty = l.ty(v);
    Ok(FValue::Tensor(l.b().value(Opcode::AtomicCas, vec![p, c, v], ty, attrs)))
}

fn make_block_ptr(
    l: &mut FnLowerer,
    base: FValue,
    shape: FValue,
    strides: FValue,
    offsets: FValue,
    block_shape: FValue,
    order: FValue,
) -> LResult<FValue> {
    let base = expect_pointer(l, &base, "tl.make_block_ptr")?;
    if l.ty(base).is_tensor() {
        return l.error("tl.make_block_ptr needs a scalar base pointer");
    }
    let (shape, strides, offsets) = (tuple_items(shape), tuple_items(strides), tuple_items(offsets));
    let block = l.const_shape(&block_shape, "block_shape")?;
    let order = l
        .const_shape(
            &FValue::Tuple(
                tuple_items(order)
                    .into_iter()
                    .map(|o| match o {
                        FValue::Const(Const::Int(i)) => FValue::int(i + 1),
                        other => other,
                    })
                    .collect(),
            ),
            "order",
        )?
        .into_iter()
        .map(|o| o - 1)
        .collect::<Vec<_>>();
    let rank = block.len();
    if shape.len() != rank || strides.len() != rank || offsets.len() != rank || order.len() != rank {
        return l.error(
            "tl.make_block_ptr: shape, strides, offsets, block_shape and order must have the same length",
        );
    }
    l.check_block_shape(&block)?;
    let to_typed = |l: &mut FnLowerer, vs: Vec<FValue>, d: DType, what: &str| -> LResult<Vec<Value>> {
        vs.into_iter()
            .map(|v| {
                let x = l.int_scalar(&v, &format!("tl.make_block_ptr's {what}"))?;
                l.cast(x, d)
            })
            .collect()
    };
    let shape = to_typed(l, shape, DType::I64, "shape")?;
    let strides = to_typed(l, strides, DType::I64, "strides")?;
    let offsets = to_typed(l, offsets, DType::I32, "offsets")?;
    Ok(FValue::BlockPtr(Box::new(BlockPtr { base, shape, strides, offsets, block_shape: block, order })))
}

/// The pointer tensor of a block pointer and, for `boundary_check` dims, the in-bounds mask.
fn block_ptr_addresses(
    l: &mut FnLowerer,
    bp: &BlockPtr,
    boundary: Option<FValue>,
) -> LResult<(Value, Option<Value>)> {
    let rank = bp.block_shape.len();
    let mut checks = Vec::new();
    if let Some(b) = none_to_option(boundary) {
        for d in tuple_items(b) {
            let d = l.const_int(&d, "boundary_check")?;
            if d < 0 || d as usize >= rank {
                return l.error(format!("boundary_check dimension {d} out of range for rank {rank}"));
            }
            checks.push(d as usize);
        }
    }
    let mut offset_sum: Option<FValue> = None;
    let mut mask: Option<FValue> = None;
    for dim in 0..rank {
        let n = bp.block_shape[dim] as i128;
        let range = super::call(l, "arange", CallArgs::positional(vec![FValue::int(0), FValue::int(n)]))?;
        let idx = l.binary(BinOp::Add, FValue::Tensor(bp.offsets[dim]), range)?;
        // Put this dim's index vector on axis `dim` of a rank-`rank` tensor.
        let mut idx_v = l.to_value(&idx)?;
        for axis in 0..rank {
            if axis != dim {
                idx_v = l.b().expand_dims(idx_v, axis);
            }
        }
        let term = l.binary(BinOp::Mul, FValue::Tensor(idx_v), FValue::Tensor(bp.strides[dim]))?;
        offset_sum = Some(match offset_sum {
            None => term,
            Some(s) => l.binary(BinOp::Add, s, term)?,
        });
        if checks.contains(&dim) {
            let lo = l.compare(CmpOp::Ge, FValue::Tensor(idx_v), FValue::int(0))?;
            let hi = l.compare(CmpOp::Lt, FValue::Tensor(idx_v), FValue::Tensor(bp.shape[dim]))?;
            let ok = l.binary(BinOp::And, lo, hi)?;
            mask = Some(match mask {
                None => ok,
                Some(m) => l.binary(BinOp::And, m, ok)?,
            });
        }
    }
    let offsets = offset_sum.expect("rank >= 1");
    let ptrs = l.binary(BinOp::Add, FValue::Tensor(bp.base), offsets)?;
    let ptrs = l.to_value(&ptrs)?;
    let ptrs = l.broadcast_to(ptrs, &bp.block_shape)?;
    let mask = match mask {
        Some(m) => {
            let m = l.to_value(&m)?;
            Some(l.broadcast_to(m, &bp.block_shape)?)
        }
        None => None,
    };
    Ok((ptrs, mask))
}

fn block_ptr_load(
    l: &mut FnLowerer,
    bp: &BlockPtr,
    boundary: Option<FValue>,
    padding: &str,
    attrs: Attrs,
) -> LResult<FValue> {
    let (ptrs, mask) = block_ptr_addresses(l, bp, boundary)?;
    let other = match (mask.is_some(), padding) {
        (false, _) => None,
        (true, "nan") => Some(FValue::Const(Const::Float(f64::NAN))),
        (true, "zero" | "") => Some(FValue::int(0)),
        (true, other) => {
            return l.error(format!("unknown padding_option {other:?} (use \"zero\" or \"nan\")"))
        }
    };
    load(l, FValue::Tensor(ptrs), mask.map(FValue::Tensor), other, attrs)
}

pub(crate) fn make_descriptor(
    l: &mut FnLowerer,
    base: FValue,
    shape: FValue,
    strides: FValue,
    block_shape: FValue,
    padding: &str,
) -> LResult<FValue> {
    let base = expect_pointer(l, &base, "tl.make_tensor_descriptor")?;
    if l.ty(base).is_tensor() {
        return l.error("tl.make_tensor_descriptor needs a scalar base pointer");
    }
    let dtype = l.dtype_of(base);
    let (shape, strides) = (tuple_items(shape), tuple_items(strides));
    let block = l.const_shape(&block_shape, "block_shape")?;
    let rank = block.len();
    if !(1..=5).contains(&rank) || shape.len() != rank || strides.len() != rank {
        return l.error(
            "tl.make_tensor_descriptor: shape, strides and block_shape must have the same length (1 to 5)",
        );
    }
    l.check_block_shape(&block)?;
    if (block[rank - 1] as usize) * dtype.size_bytes() < 16 {
        return l.error(format!(
            "tl.make_tensor_descriptor: the last block dimension must span at least 16 bytes, got {} x {} bytes",
            block[rank - 1],
            dtype.size_bytes()
        ));
    }
    if let FValue::Const(Const::Int(s)) = &strides[rank - 1] {
        if *s != 1 {
            return l.error("tl.make_tensor_descriptor: the last stride must be 1");
        }
    }
    let mut operands = vec![base];
    for s in shape {
        let x = l.int_scalar(&s, "tl.make_tensor_descriptor's shape")?;
        operands.push(l.cast(x, DType::I32)?);
    }
    for s in strides {
        let x = l.int_scalar(&s, "tl.make_tensor_descriptor's strides")?;
        operands.push(l.cast(x, DType::I64)?);
    }
    let padding = if padding.is_empty() { "zero" } else { padding };
    let ty = Type::Desc { dtype, block };
    let attrs = Attrs::new().with("padding", Attr::Str(padding.into()));
    Ok(FValue::Tensor(l.b().value(Opcode::MakeTensorDescriptor, operands, ty, attrs)))
}

/// `desc.load(offsets)` and `desc.store(offsets, value)`; `desc` must have a descriptor type.
pub fn desc_method(l: &mut FnLowerer, desc: Value, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    let Type::Desc { dtype, block } = l.ty(desc) else {
        return l.error(format!("`{name}` needs a tensor descriptor, got {}", l.ty(desc)));
    };
    let offsets = l.arg(a, 0, "offsets", name)?;
    let offsets = tuple_items(offsets);
    if offsets.len() != block.len() {
        return l.error(format!("{} offsets for a rank-{} descriptor", offsets.len(), block.len()));
    }
    let mut offs = Vec::new();
    for o in offsets {
        let x = l.int_scalar(&o, &format!("the offsets of desc.{name}"))?;
        offs.push(l.cast(x, DType::I32)?);
    }
    match name {
        "load" => {
            l.no_more(a, "desc.load")?;
            let mut operands = vec![desc];
            operands.extend(offs);
            let ty = Type::tensor(Elem::Scalar(dtype), &block);
            Ok(FValue::Tensor(l.b().value(Opcode::DescriptorLoad, operands, ty, Attrs::new())))
        }
        "store" => {
            let value = l.arg(a, 1, "value", name)?;
            l.no_more(a, "desc.store")?;
            let v = l.to_value(&value)?;
            let v = l.cast(v, dtype)?;
            let v = l.broadcast_to(v, &block)?;
            let mut operands = vec![desc, v];
            operands.extend(offs);
            l.b().op(Opcode::DescriptorStore, operands, &[], Attrs::new());
            Ok(FValue::Const(Const::None))
        }
        other => l.error(format!("a tensor descriptor has no method `{other}` supported by trident yet")),
    }
}
