//! Tensor construction and data movement: `tt.make_range`, splat, broadcast, expand_dims,
//! reshape, trans, join, split, cat, plus the element-reordering ops histogram, sort and topk.
//!
//! Every movement is expressed as one gather list of flat source indices (row-major), computed
//! once per op, so the element storage variant never matters here.

use std::cmp::Ordering;

use trident_midend::ir::{Attrs, DType, Type};

use super::numerics::{canon, zext};
use super::value::{err, strides, Data, Res, Val};

/// The shape of a type as `usize`s.
pub fn shape_of(ty: &Type) -> Vec<usize> {
    ty.shape().iter().map(|&d| d as usize).collect()
}

/// `tt.make_range`: the i32 values `start..end`.
pub fn make_range(attrs: &Attrs, ty: &Type) -> Res<Val> {
    let (Some(start), Some(end)) = (attrs.int("start"), attrs.int("end")) else {
        return err("tt.make_range without `start` and `end`");
    };
    let d = ty.dtype();
    Val::new(shape_of(ty), Data::Int((start..end).map(|x| canon(d, x)).collect()))
}

/// Broadcasts `val` to `shape` (numpy rules: leading dims added, size-1 dims stretched).
pub fn broadcast_to(val: &Val, shape: &[usize]) -> Res<Val> {
    if val.shape == shape {
        return Ok(val.clone());
    }
    let numel: usize = shape.iter().product();
    if val.numel() == 1 {
        return Val::new(shape.to_vec(), val.data.gather(&vec![0; numel]));
    }
    if val.shape.len() > shape.len() {
        return err(format!("cannot broadcast shape {:?} to {shape:?}", val.shape));
    }
    let pad = shape.len() - val.shape.len();
    let src_strides = strides(&val.shape);
    // Stride 0 along stretched (or added) dimensions.
    let mut eff = vec![0; shape.len()];
    for (d, &extent) in val.shape.iter().enumerate() {
        if extent != 1 && extent != shape[pad + d] {
            return err(format!("cannot broadcast shape {:?} to {shape:?}", val.shape));
        }
        eff[pad + d] = if extent == 1 { 0 } else { src_strides[d] };
    }
    let indices = permuted_indices(shape, &eff);
    Val::new(shape.to_vec(), val.data.gather(&indices))
}

/// Flat source indices for an output of `shape` whose coordinate along dim d advances the
/// source index by `src_stride[d]`.
fn permuted_indices(shape: &[usize], src_stride: &[usize]) -> Vec<usize> {
    let numel: usize = shape.iter().product();
    let mut out = Vec::with_capacity(numel);
    let rank = shape.len();
    let mut coord = vec![0usize; rank];
    let mut src = 0usize;
    for _ in 0..numel {
        out.push(src);
        // Odometer increment, innermost dimension first.
        for d in (0..rank).rev() {
            coord[d] += 1;
            src += src_stride[d];
            if coord[d] < shape[d] {
                break;
            }
            src -= src_stride[d] * shape[d];
            coord[d] = 0;
        }
    }
    out
}

/// `tt.trans`: result dim i is operand dim `order[i]`.
pub fn trans(val: &Val, attrs: &Attrs) -> Res<Val> {
    let rank = val.shape.len();
    let order: Vec<usize> = match attrs.ints("order") {
        Some(o) => o.iter().map(|&x| x as usize).collect(),
        None => (0..rank).rev().collect(),
    };
    let mut seen = vec![false; rank];
    if order.len() != rank || order.iter().any(|&d| d >= rank || std::mem::replace(&mut seen[d], true)) {
        return err(format!("tt.trans order {order:?} is not a permutation of {rank} dims"));
    }
    let src_strides = strides(&val.shape);
    let shape: Vec<usize> = order.iter().map(|&d| val.shape[d]).collect();
    let stride: Vec<usize> = order.iter().map(|&d| src_strides[d]).collect();
    let indices = permuted_indices(&shape, &stride);
    Val::new(shape, val.data.gather(&indices))
}

/// Concatenation of two storages of the same variant.
pub fn concat(a: &Data, b: &Data) -> Res<Data> {
    Ok(match (a, b) {
        (Data::Int(x), Data::Int(y)) => Data::Int([x.as_slice(), y].concat()),
        (Data::Float(x), Data::Float(y)) => Data::Float([x.as_slice(), y].concat()),
        (Data::Ptr(x), Data::Ptr(y)) => Data::Ptr([x.as_slice(), y].concat()),
        _ => return err("joining values of different element kinds"),
    })
}

/// `tt.join`: a new minor dimension of 2 holding `a` then `b`.
pub fn join(a: &Val, b: &Val) -> Res<Val> {
    let n = a.numel();
    if b.numel() != n {
        return err("tt.join of differently shaped operands");
    }
    let both = concat(&a.data, &b.data)?;
    let indices: Vec<usize> = (0..n).flat_map(|i| [i, n + i]).collect();
    let mut shape = a.shape.clone();
    shape.push(2);
    Val::new(shape, both.gather(&indices))
}

/// `tt.split`: the minor dimension (of size 2) into two tensors.
pub fn split(val: &Val) -> Res<(Val, Val)> {
    if val.shape.last() != Some(&2) {
        return err(format!("tt.split of shape {:?}: the minor dimension must be 2", val.shape));
    }
    let shape = val.shape[..val.shape.len() - 1].to_vec();
    let n = val.numel() / 2;
    let even: Vec<usize> = (0..n).map(|i| 2 * i).collect();
    let odd: Vec<usize> = (0..n).map(|i| 2 * i + 1).collect();
    Ok((Val::new(shape.clone(), val.data.gather(&even))?, Val::new(shape, val.data.gather(&odd))?))
}

/// `tt.cat`: `a` then `b` along dim 0.
pub fn cat(a: &Val, b: &Val, ty: &Type) -> Res<Val> {
    Val::new(shape_of(ty), concat(&a.data, &b.data)?)
}

/// `tt.gather`: `result[c] = src[c with c[axis] = index[c]]`, of the index's shape. An index
/// outside the source along `axis` is an error here (Triton leaves it undefined).
pub fn gather(src: &Val, index: &Val, axis: usize, index_dtype: DType) -> Res<Val> {
    let rank = src.shape.len();
    if axis >= rank || index.shape.len() != rank {
        return err(format!(
            "tt.gather along axis {axis} of {:?} with an index of {:?}",
            src.shape, index.shape
        ));
    }
    let (src_strides, index_strides) = (strides(&src.shape), strides(&index.shape));
    let size = src.shape[axis];
    let mut picks = Vec::with_capacity(index.numel());
    for (n, &value) in index.ints()?.iter().enumerate() {
        // Unsigned values are canonical non-negative; u64 is read as its unsigned value.
        let value =
            if index_dtype == DType::U64 { zext(64, value).min(i64::MAX as u64) as i64 } else { value };
        if !(0..size as i64).contains(&value) {
            return err(format!(
                "tl.gather index {value} is outside the source's {size} elements along axis {axis}"
            ));
        }
        let mut at = 0;
        for d in 0..rank {
            let coordinate = if d == axis { value as usize } else { n / index_strides[d] % index.shape[d] };
            at += coordinate * src_strides[d];
        }
        picks.push(at);
    }
    Val::new(index.shape.clone(), src.data.gather(&picks))
}

/// `tt.histogram`: counts of the values 0..N-1 (N = result length) among the unmasked lanes.
pub fn histogram(x: &Val, mask: Option<&Val>, x_dtype: DType, ty: &Type) -> Res<Val> {
    let bins = shape_of(ty).iter().product::<usize>();
    let values = x.ints()?;
    if mask.is_some_and(|m| m.numel() != 1 && m.numel() != values.len()) {
        return err("tt.histogram mask does not match its operand");
    }
    let mask = mask.map(Val::ints).transpose()?;
    let mut counts = vec![0i64; bins];
    for (i, &v) in values.iter().enumerate() {
        if mask.is_some_and(|m| m[super::value::lane(m.len(), i)] == 0) {
            continue;
        }
        // Unsigned values are canonical non-negative; u64 is read as its unsigned value.
        let v = if x_dtype == DType::U64 { zext(64, v).min(i64::MAX as u64) as i64 } else { v };
        if v >= 0 && (v as usize) < bins {
            counts[v as usize] += 1;
        }
    }
    let d = ty.dtype();
    Val::new(shape_of(ty), Data::Int(counts.into_iter().map(|c| canon(d, c)).collect()))
}

/// The order of two elements of dtype `d` (floats: NaN after everything).
fn compare(data: &Data, d: DType, i: usize, j: usize) -> Ordering {
    match data {
        Data::Int(v) if d == DType::U64 => (v[i] as u64).cmp(&(v[j] as u64)),
        Data::Int(v) => v[i].cmp(&v[j]),
        Data::Float(v) => match (v[i].is_nan(), v[j].is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => v[i].partial_cmp(&v[j]).unwrap_or(Ordering::Equal),
        },
        _ => Ordering::Equal,
    }
}

/// Sorts every line of `val` along `axis` (stable; NaN last in both directions) and keeps the
/// first `keep` elements of each line.
fn sort_lines(val: &Val, d: DType, axis: usize, descending: bool, keep: usize) -> Res<Val> {
    if axis >= val.shape.len() {
        return err(format!("sort axis {axis} out of range for shape {:?}", val.shape));
    }
    let len = val.shape[axis];
    let inner: usize = val.shape[axis + 1..].iter().product();
    let outer: usize = val.shape[..axis].iter().product();
    let keep = keep.min(len);
    let mut indices = vec![0usize; outer * keep * inner];
    let mut line: Vec<usize> = Vec::with_capacity(len);
    for o in 0..outer {
        for j in 0..inner {
            line.clear();
            line.extend((0..len).map(|k| (o * len + k) * inner + j));
            line.sort_by(|&a, &b| {
                let nan_a = matches!(&val.data, Data::Float(v) if v[a].is_nan());
                let nan_b = matches!(&val.data, Data::Float(v) if v[b].is_nan());
                let ord = compare(&val.data, d, a, b);
                if descending && !nan_a && !nan_b {
                    ord.reverse()
                } else {
                    ord
                }
            });
            for (k, &src) in line.iter().take(keep).enumerate() {
                indices[(o * keep + k) * inner + j] = src;
            }
        }
    }
    let mut shape = val.shape.clone();
    shape[axis] = keep;
    Val::new(shape, val.data.gather(&indices))
}

/// `tt.sort` along attribute `dim` (default: the last), `descending` optional.
pub fn sort(val: &Val, d: DType, attrs: &Attrs) -> Res<Val> {
    let rank = val.shape.len();
    let axis = attrs.int("dim").unwrap_or(rank as i64 - 1);
    if axis < 0 {
        return err("tt.sort with a negative `dim`");
    }
    let descending = attrs.bool("descending").unwrap_or(false);
    sort_lines(val, d, axis as usize, descending, usize::MAX)
}

/// `tt.topk`: the k largest along the last dim, largest first (k = result extent).
pub fn topk(val: &Val, d: DType, ty: &Type) -> Res<Val> {
    let Some(&k) = ty.shape().last() else {
        return err("tt.topk with a scalar result");
    };
    if val.shape.is_empty() {
        return err("tt.topk of a scalar");
    }
    sort_lines(val, d, val.shape.len() - 1, true, k as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trans_and_broadcast_move_elements() {
        let v = Val::new(vec![2, 3], Data::Int((0..6).collect())).unwrap();
        let attrs = Attrs::new().with("order", trident_midend::ir::Attr::Ints(vec![1, 0]));
        let t = trans(&v, &attrs).unwrap();
        assert_eq!(t.shape, vec![3, 2]);
        assert_eq!(t.ints().unwrap(), &[0, 3, 1, 4, 2, 5]);
        let col = Val::new(vec![2, 1], Data::Int(vec![7, 8])).unwrap();
        assert_eq!(broadcast_to(&col, &[2, 3]).unwrap().ints().unwrap(), &[7, 7, 7, 8, 8, 8]);
        let sorted = sort_lines(&v, DType::I32, 1, true, 2).unwrap();
        assert_eq!(sorted.ints().unwrap(), &[2, 1, 5, 4]);
    }
}
