//! Shape manipulation: `reshape` / `view` / `ravel`, `trans` / `permute`, `join` / `split` /
//! `interleave`, `expand_dims`, `broadcast_to` / `broadcast`, `cat`, and `flip` (built, as in
//! Triton, from a reshape into a 2x2x...x2 view and a swap of each size-2 axis).

use trident_midend::ir::{Attr, Attrs, DType, Opcode, Value};

use super::CallArgs;
use crate::lower::{FnLowerer, LResult};
use crate::value::{Const, FValue};

pub fn call(l: &mut FnLowerer, name: &str, a: &mut CallArgs) -> LResult<FValue> {
    match name {
        "reshape" | "view" | "ravel" => {
            let x = l.arg(a, 0, "input", name)?;
            let x = l.to_value(&x)?;
            if !l.ty(x).is_tensor() {
                // Triton's reshape reads the number of elements of a block type, which a scalar
                // does not have.
                return l.error(format!(
                    "tl.{name} needs a tensor, got a scalar {}; make a one-element tensor with x[None]",
                    l.elem_name(x)
                ));
            }
            let shape = if name == "ravel" {
                vec![l.ty(x).numel() as u32]
            } else {
                let mut rest = a.take_rest(1);
                let s = match (rest.len(), a.take_kw("shape")) {
                    (_, Some(s)) => s,
                    (1, None) => rest.remove(0),
                    (0, None) => return l.error(format!("tl.{name} needs a shape")),
                    (_, None) => FValue::Tuple(rest),
                };
                l.const_shape(&s, "the shape")?
            };
            let can_reorder = a.take_kw("can_reorder");
            l.no_more(a, name)?;
            let reorder = name != "reshape" || l.const_bool(can_reorder, false, "can_reorder")?;
            Ok(FValue::Tensor(reshape(l, x, &shape, reorder)?))
        }
        "trans" | "permute" => {
            let x = l.arg(a, 0, "input", name)?;
            let x = l.to_value(&x)?;
            let mut rest = a.take_rest(1);
            let dims = match (rest.len(), a.take_kw("dims")) {
                (_, Some(d)) => Some(d),
                (0, None) => None,
                (1, None) => Some(rest.remove(0)),
                (_, None) => Some(FValue::Tuple(rest)),
            };
            l.no_more(a, name)?;
            let rank = l.shape_of(x).len();
            let order: Vec<usize> = match dims {
                None | Some(FValue::Const(Const::None)) => {
                    if rank != 2 && name == "trans" {
                        return l.error(format!("tl.trans without dims needs a 2-D tensor, got rank {rank}"));
                    }
                    if name == "permute" {
                        return l.error("tl.permute needs dims");
                    }
                    vec![1, 0]
                }
                Some(d) => {
                    let items = match d {
                        FValue::Tuple(t) => t,
                        other => vec![other],
                    };
                    let mut v = Vec::new();
                    for i in items {
                        v.push(l.const_int(&i, "a dimension")? as usize);
                    }
                    v
                }
            };
            Ok(FValue::Tensor(permute(l, x, &order)?))
        }
        "join" => {
            let x = l.arg(a, 0, "a", "tl.join")?;
            let y = l.arg(a, 1, "b", "tl.join")?;
            l.no_more(a, "tl.join")?;
            let (x, y) = same_elements(l, x, y, "tl.join")?;
            Ok(FValue::Tensor(join(l, x, y)?))
        }
        "split" => {
            let x = l.arg(a, 0, "a", "tl.split")?;
            l.no_more(a, "tl.split")?;
            let x = l.to_value(&x)?;
            let (lo, hi) = split(l, x)?;
            Ok(FValue::Tuple(vec![FValue::Tensor(lo), FValue::Tensor(hi)]))
        }
        "interleave" => {
            let x = l.arg(a, 0, "a", "tl.interleave")?;
            let y = l.arg(a, 1, "b", "tl.interleave")?;
            l.no_more(a, "tl.interleave")?;
            let (x, y) = same_elements(l, x, y, "tl.interleave")?;
            let j = join(l, x, y)?;
            let mut shape = l.shape_of(j);
            let two = shape.pop().unwrap();
            let last = shape.pop().unwrap_or(1);
            shape.push(last * two);
            Ok(FValue::Tensor(reshape(l, j, &shape, false)?))
        }
        "expand_dims" => {
            let x = l.arg(a, 0, "input", "tl.expand_dims")?;
            let axis = l.arg(a, 1, "axis", "tl.expand_dims")?;
            l.no_more(a, "tl.expand_dims")?;
            let mut x = l.to_value(&x)?;
            let axes = match axis {
                FValue::Tuple(t) => t,
                other => vec![other],
            };
            let mut list = Vec::new();
            let new_rank = l.shape_of(x).len() + axes.len();
            for ax in axes {
                let v = l.const_int(&ax, "axis")?;
                let v = if v < 0 { v + new_rank as i64 } else { v };
                if v < 0 || v as usize >= new_rank {
                    return l
                        .error(format!("tl.expand_dims: axis out of range for the result rank {new_rank}"));
                }
                list.push(v as usize);
            }
            list.sort();
            for ax in list {
                x = l.b().expand_dims(x, ax);
            }
            Ok(FValue::Tensor(x))
        }
        "broadcast_to" => {
            let x = l.arg(a, 0, "input", "tl.broadcast_to")?;
            let mut rest = a.take_rest(1);
            let shape = match (rest.len(), a.take_kw("shape")) {
                (_, Some(s)) => s,
                (1, None) => rest.remove(0),
                (0, None) => return l.error("tl.broadcast_to needs a shape"),
                (_, None) => FValue::Tuple(rest),
            };
            l.no_more(a, "tl.broadcast_to")?;
            let shape = l.const_shape(&shape, "the shape")?;
            l.check_block_shape(&shape)?;
            let x = l.to_value(&x)?;
            Ok(FValue::Tensor(l.broadcast_to(x, &shape)?))
        }
        "broadcast" => {
            let x = l.arg(a, 0, "input", "tl.broadcast")?;
            let y = l.arg(a, 1, "other", "tl.broadcast")?;
            l.no_more(a, "tl.broadcast")?;
            let (x, y) = (l.to_value(&x)?, l.to_value(&y)?);
            let (x, y) = l.broadcast_pair(x, y)?;
            Ok(FValue::Tuple(vec![FValue::Tensor(x), FValue::Tensor(y)]))
        }
        "cat" => {
            let x = l.arg(a, 0, "input", "tl.cat")?;
            let y = l.arg(a, 1, "other", "tl.cat")?;
            let reorder = a.take(2, "can_reorder");
            l.no_more(a, "tl.cat")?;
            if !l.const_bool(reorder, false, "can_reorder")? {
                return l.error("tl.cat is only supported with can_reorder=True (as in Triton)");
            }
            let (x, y) = (l.to_value(&x)?, l.to_value(&y)?);
            if l.ty(x) != l.ty(y) {
                return l.error("tl.cat needs operands of the same type");
            }
            let mut shape = l.shape_of(x);
            if shape.is_empty() {
                return l.error("tl.cat needs tensors");
            }
            shape[0] *= 2;
            let ty = l.ty(x).with_shape(&shape);
            Ok(FValue::Tensor(l.b().value(Opcode::Cat, vec![x, y], ty, Attrs::new())))
        }
        "gather" => {
            let src = l.arg(a, 0, "src", "tl.gather")?;
            let index = l.arg(a, 1, "index", "tl.gather")?;
            let axis = l.arg(a, 2, "axis", "tl.gather")?;
            l.no_more(a, "tl.gather")?;
            let (src, index) = (l.to_value(&src)?, l.to_value(&index)?);
            let axis = l.const_int(&axis, "tl.gather's axis")?;
            gather(l, src, index, axis)
        }
        "flip" => {
            let x = l.arg(a, 0, "x", "tl.flip")?;
            let dim = a.take(1, "dim");
            l.no_more(a, "tl.flip")?;
            let x = l.to_value(&x)?;
            let shape = l.shape_of(x);
            if shape.is_empty() {
                return l.error("tl.flip needs a tensor");
            }
            let dim = match dim {
                None | Some(FValue::Const(Const::None)) => shape.len() - 1,
                Some(d) => {
                    let d = l.const_int(&d, "dim")?;
                    let r = shape.len() as i64;
                    if d < -r || d >= r {
                        return l.error("tl.flip: dim out of range");
                    }
                    if d < 0 {
                        (d + r) as usize
                    } else {
                        d as usize
                    }
                }
            };
            Ok(FValue::Tensor(flip(l, x, dim)?))
        }
        other => l.error(format!("`{other}` is not supported")),
    }
}

/// The two operands of `tl.join` / `tl.interleave`, broadcast to one shape: they must have one
/// element type (Triton does not promote here; the op takes one type).
fn same_elements(l: &mut FnLowerer, x: FValue, y: FValue, func: &str) -> LResult<(Value, Value)> {
    let (x, y) = (l.to_value(&x)?, l.to_value(&y)?);
    if l.ty(x).elem() != l.ty(y).elem() {
        return l.error(format!(
            "{func} needs two operands of one element type, got {} and {}; cast one of them",
            l.elem_name(x),
            l.elem_name(y)
        ));
    }
    l.broadcast_pair(x, y)
}

pub fn reshape(l: &mut FnLowerer, x: Value, shape: &[u32], allow_reorder: bool) -> LResult<Value> {
    let from = l.shape_of(x);
    let (n_from, n_to): (u64, u64) =
        (from.iter().map(|&d| d as u64).product(), shape.iter().map(|&d| d as u64).product());
    if n_from != n_to {
        return l.error(format!(
            "cannot reshape a tensor of shape {from:?} ({n_from} elements) to {shape:?} ({n_to} elements)"
        ));
    }
    l.check_block_shape(shape)?;
    if from == shape {
        return Ok(x);
    }
    let ty = l.ty(x).with_shape(shape);
    let attrs = Attrs::new().with("allow_reorder", Attr::Bool(allow_reorder));
    Ok(l.b().value(Opcode::Reshape, vec![x], ty, attrs))
}

pub fn permute(l: &mut FnLowerer, x: Value, order: &[usize]) -> LResult<Value> {
    let shape = l.shape_of(x);
    let mut sorted = order.to_vec();
    sorted.sort();
    if sorted != (0..shape.len()).collect::<Vec<_>>() {
        return l.error(format!("{order:?} is not a permutation of the {} dimensions", shape.len()));
    }
    if order.iter().enumerate().all(|(i, &o)| i == o) {
        return Ok(x);
    }
    let out: Vec<u32> = order.iter().map(|&o| shape[o]).collect();
    let ty = l.ty(x).with_shape(&out);
    let attrs = Attrs::new().with("order", Attr::Ints(order.iter().map(|&o| o as i64).collect()));
    Ok(l.b().value(Opcode::Trans, vec![x], ty, attrs))
}

fn join(l: &mut FnLowerer, x: Value, y: Value) -> LResult<Value> {
    if l.shape_of(x).is_empty() {
        // `tt.join` joins tensors: two scalars are joined as one-element tensors and the [1, 2]
        // result viewed as [2], as Triton's `join` does.
        let (x, y) = (l.b().expand_dims(x, 0), l.b().expand_dims(y, 0));
        let pair = join(l, x, y)?;
        return reshape(l, pair, &[2], false);
    }
    let mut shape = l.shape_of(x);
    shape.push(2);
    let ty = l.ty(x).with_shape(&shape);
    Ok(l.b().value(Opcode::Join, vec![x, y], ty, Attrs::new()))
}

fn split(l: &mut FnLowerer, x: Value) -> LResult<(Value, Value)> {
    let mut shape = l.shape_of(x);
    if shape.last() != Some(&2) {
        return l.error(format!("tl.split needs a last dimension of size 2, got shape {shape:?}"));
    }
    if shape.len() == 1 {
        // `tt.split` makes tensors: a [2] tensor is split as [1, 2] and each half's element taken
        // as a scalar, as Triton's `split` does.
        let row = l.b().expand_dims(x, 0);
        let (lo, hi) = split(l, row)?;
        return Ok((super::reduce::take_first(l, lo)?, super::reduce::take_first(l, hi)?));
    }
    shape.pop();
    let ty = l.ty(x).with_shape(&shape);
    let op = l.b().op(Opcode::Split, vec![x], &[ty.clone(), ty], Attrs::new());
    let r = l.func.body.op(op).results.clone();
    Ok((r[0], r[1]))
}

/// Reverses `x` along `dim` (a power-of-two extent): view that dim as 2x2x...x2 and swap the two
/// halves of each size-2 axis with split + join.
fn flip(l: &mut FnLowerer, x: Value, dim: usize) -> LResult<Value> {
    let shape = l.shape_of(x);
    let n = shape[dim];
    if n == 1 {
        return Ok(x);
    }
    let steps = n.trailing_zeros() as usize;
    let mut view: Vec<u32> = shape[..dim].to_vec();
    view.extend(std::iter::repeat_n(2, steps));
    view.extend_from_slice(&shape[dim + 1..]);
    let mut y = reshape(l, x, &view, false)?;
    let rank = view.len();
    for i in 0..steps {
        let axis = dim + i;
        // Move `axis` last, swap the two halves, move it back.
        let mut order: Vec<usize> = (0..rank).filter(|&d| d != axis).collect();
        order.push(axis);
        let t = permute(l, y, &order)?;
        let (lo, hi) = split(l, t)?;
        let swapped = join(l, hi, lo)?;
        let mut inverse = vec![0; rank];
        for (pos, &d) in order.iter().enumerate() {
            inverse[d] = pos;
        }
        y = permute(l, swapped, &inverse)?;
    }
    reshape(l, y, &shape, false)
}

/// `tl.gather(src, index, axis)`: `result[c] = src[c with c[axis] = index[c]]`, of `index`'s shape
/// and `src`'s dtype; `index` is an integer tensor of `src`'s rank and shape but along `axis`
/// (negative axes count from the last). An index outside `src` is undefined in Triton; the
/// interpreter reports it.
fn gather(l: &mut FnLowerer, src: Value, index: Value, axis: i64) -> LResult<FValue> {
    let (src_shape, index_shape) = (l.shape_of(src), l.shape_of(index));
    if src_shape.is_empty() {
        return l.error("tl.gather needs a tensor to gather from, not a scalar");
    }
    // A tensor of pointers has its pointee's dtype: `number_dtype` leaves pointers out.
    if !l.number_dtype(index).is_some_and(|d| d.is_int() && d != DType::I1) {
        return l.error(format!("tl.gather needs an integer index, got {}", l.ty(index)));
    }
    if index_shape.len() != src_shape.len() {
        return l.error(format!(
            "tl.gather needs the source and the index of one rank: {:?} and {:?}",
            src_shape, index_shape
        ));
    }
    let rank = src_shape.len() as i64;
    if !(-rank..rank).contains(&axis) {
        return l.error(format!("tl.gather's axis {axis} is not a dimension of a rank-{rank} tensor"));
    }
    let axis = if axis < 0 { axis + rank } else { axis } as usize;
    if let Some(d) = (0..src_shape.len()).find(|&d| d != axis && src_shape[d] != index_shape[d]) {
        return l.error(format!(
            "tl.gather needs the index to match the source but along axis {axis}: dim {d} is {} in the index and {} in the source",
            index_shape[d], src_shape[d]
        ));
    }
    let ty = l.ty(src).with_shape(&index_shape);
    let attrs = Attrs::new().with("axis", Attr::Int(axis as i64));
    Ok(FValue::Tensor(l.b().value(Opcode::Gather, vec![src, index], ty, attrs)))
}
