//! `tt.reduce`, `tt.scan` and `tt.dot`.
//!
//! Reductions and scans evaluate their combine region on whole tensors rather than per
//! element. A reduction along an axis pairs neighbouring elements, (x[2i], x[2i+1]), and
//! evaluates the region once per level of that pairwise tree; keeping neighbours together means
//! the left operand is always the earlier run of elements, so any *associative* combine (also a
//! non-commutative one, such as an affine composition) gives the sequential answer. A scan uses
//! Hillis–Steele steps d = 1, 2, 4, ...: y'[i] = combine(y[i-d], y[i]) for i >= d, the earlier
//! element on the left; `reverse` flips the axis before and after, as Triton's interpreter does.
//!
//! `tt.dot` accumulates one product at a time in k order into the result dtype; for f32 results
//! each step is a fused multiply-add rounded once to f32. f32 inputs are rounded to tf32 (ties
//! away from zero) unless `input_precision` is `ieee` (or a split form, `tf32x3`, `bf16x3` or
//! `bf16x6`, which approximate f32 products: taken as ieee).

use std::rc::Rc;

use trident_midend::ir::{Attrs, DType};

use super::numerics::{canon, round, tf32};
use super::tensor::concat;
use super::value::{axis_indices, err, take_along, Res, Val};

/// Evaluates a combine region: 2n tensor arguments (n lhs, then n rhs) to n results.
pub type Combine<'c> = dyn FnMut(Vec<Rc<Val>>) -> Res<Vec<Rc<Val>>> + 'c;

/// Checks the operands of a reduce or scan and returns their common shape.
fn common_shape(operands: &[Rc<Val>], axis: usize, what: &str) -> Res<Vec<usize>> {
    let Some(first) = operands.first() else {
        return err(format!("{what} without operands"));
    };
    if axis >= first.shape.len() {
        return err(format!("{what} axis {axis} out of range for shape {:?}", first.shape));
    }
    if operands.iter().any(|v| v.shape != first.shape) {
        return err(format!("{what} operands of different shapes"));
    }
    if first.shape[axis] == 0 {
        return err(format!("{what} along an empty axis"));
    }
    Ok(first.shape.clone())
}

/// Calls the combine region and broadcasts its results to `shape`.
fn apply(combine: &mut Combine, args: Vec<Rc<Val>>, n: usize, shape: &[usize]) -> Res<Vec<Val>> {
    let results = combine(args)?;
    if results.len() != n {
        return err(format!("combine region returned {} values, expected {n}", results.len()));
    }
    results.iter().map(|r| r.broadcast_numel(shape)).collect()
}

/// `a` followed by `b` along `axis` (equal shapes elsewhere).
fn concat_axis(a: &Val, b: &Val, axis: usize) -> Res<Val> {
    let (la, lb) = (a.shape[axis], b.shape[axis]);
    let outer: usize = a.shape[..axis].iter().product();
    let inner: usize = a.shape[axis + 1..].iter().product();
    let both = concat(&a.data, &b.data)?;
    let mut indices = Vec::with_capacity(both.len());
    for o in 0..outer {
        let start_a = o * la * inner;
        indices.extend(start_a..start_a + la * inner);
        let start_b = a.numel() + o * lb * inner;
        indices.extend(start_b..start_b + lb * inner);
    }
    let mut shape = a.shape.clone();
    shape[axis] = la + lb;
    Val::new(shape, both.gather(&indices))
}

/// `tt.reduce` of `operands` along `axis`; the results have the axis removed.
pub fn reduce(operands: &[Rc<Val>], axis: usize, combine: &mut Combine) -> Res<Vec<Val>> {
    let shape = common_shape(operands, axis, "tt.reduce")?;
    let n = operands.len();
    let mut current: Vec<Val> = operands.iter().map(|v| (**v).clone()).collect();
    let mut len = shape[axis];
    while len > 1 {
        let half = len / 2;
        let even: Vec<usize> = (0..half).map(|i| 2 * i).collect();
        let odd: Vec<usize> = (0..half).map(|i| 2 * i + 1).collect();
        let mut args = Vec::with_capacity(2 * n);
        args.extend(current.iter().map(|v| Rc::new(take_along(v, axis, &even))));
        args.extend(current.iter().map(|v| Rc::new(take_along(v, axis, &odd))));
        let mut half_shape = shape.clone();
        half_shape[axis] = half;
        let mut next = apply(combine, args, n, &half_shape)?;
        if len % 2 == 1 {
            // The last element has no partner at this level; it stays last.
            for (k, v) in next.iter_mut().enumerate() {
                *v = concat_axis(v, &take_along(&current[k], axis, &[len - 1]), axis)?;
            }
        }
        current = next;
        len = half + len % 2;
    }
    let mut out_shape = shape;
    out_shape.remove(axis);
    current.iter().map(|v| v.reshaped(out_shape.clone())).collect()
}

/// `tt.scan` (inclusive) of `operands` along `axis`.
pub fn scan(operands: &[Rc<Val>], axis: usize, reverse: bool, combine: &mut Combine) -> Res<Vec<Val>> {
    let shape = common_shape(operands, axis, "tt.scan")?;
    let n = operands.len();
    let len = shape[axis];
    let reversed: Vec<usize> = (0..len).rev().collect();
    let mut current: Vec<Val> = operands
        .iter()
        .map(|v| if reverse { take_along(v, axis, &reversed) } else { (**v).clone() })
        .collect();
    let mut step = 1;
    while step < len {
        let left: Vec<usize> = (0..len - step).collect();
        let right: Vec<usize> = (step..len).collect();
        let mut args = Vec::with_capacity(2 * n);
        args.extend(current.iter().map(|v| Rc::new(take_along(v, axis, &left))));
        args.extend(current.iter().map(|v| Rc::new(take_along(v, axis, &right))));
        let mut part_shape = shape.clone();
        part_shape[axis] = len - step;
        let results = apply(combine, args, n, &part_shape)?;
        let targets = axis_indices(&shape, axis, &right);
        for (v, r) in current.iter_mut().zip(&results) {
            v.data.scatter(&targets, &r.data)?;
        }
        step *= 2;
    }
    if reverse {
        current = current.iter().map(|v| take_along(v, axis, &reversed)).collect();
    }
    Ok(current)
}

/// The (batch, m, k, n) extents of a dot, checked.
fn dot_dims(a: &Val, b: &Val, c: &Val) -> Res<[usize; 4]> {
    let rank = a.shape.len();
    let ok = (rank == 2 || rank == 3) && b.shape.len() == rank && c.shape.len() == rank;
    if !ok {
        return err(format!("tt.dot of shapes {:?} x {:?} + {:?}", a.shape, b.shape, c.shape));
    }
    let batch = if rank == 3 { a.shape[0] } else { 1 };
    let (m, k, n) = (a.shape[rank - 2], a.shape[rank - 1], b.shape[rank - 1]);
    let batch_ok = rank == 2 || (b.shape[0] == batch && c.shape[0] == batch);
    if !batch_ok || b.shape[rank - 2] != k || c.shape[rank - 2] != m || c.shape[rank - 1] != n {
        return err(format!("tt.dot of shapes {:?} x {:?} + {:?}", a.shape, b.shape, c.shape));
    }
    Ok([batch, m, k, n])
}

/// `tt.dot`: c + a @ b. `in_dtype` is a's element type, `out` the result's.
pub fn dot(a: &Val, b: &Val, c: &Val, in_dtype: DType, out: DType, attrs: &Attrs) -> Res<Val> {
    let [batch, m, k, n] = dot_dims(a, b, c)?;
    if out.is_int() {
        let (x, y) = (a.ints()?, b.ints()?);
        let mut acc = c.ints()?.to_vec();
        for bi in 0..batch {
            for mi in 0..m {
                let row = &mut acc[(bi * m + mi) * n..(bi * m + mi + 1) * n];
                for ki in 0..k {
                    let av = x[(bi * m + mi) * k + ki];
                    let b_row = &y[(bi * k + ki) * n..(bi * k + ki + 1) * n];
                    for (r, &bv) in row.iter_mut().zip(b_row) {
                        *r = canon(out, r.wrapping_add(av.wrapping_mul(bv)));
                    }
                }
            }
        }
        return Val::new(c.shape.clone(), super::value::Data::Int(acc));
    }
    let precision = attrs.str("input_precision").unwrap_or("tf32");
    let to_tf32 = in_dtype == DType::F32 && precision == "tf32";
    let prepare = |v: &Val| -> Res<Vec<f64>> {
        let xs = v.floats()?;
        Ok(if to_tf32 { xs.iter().map(|&x| tf32(x as f32) as f64).collect() } else { xs.to_vec() })
    };
    let (x, y) = (prepare(a)?, prepare(b)?);
    let mut acc = c.floats()?.to_vec();
    // One accumulation step: a fused multiply-add rounded once to the result dtype.
    let step: fn(f64, f64, f64, DType) -> f64 = match out {
        DType::F32 => |acc, a, b, _| (a as f32).mul_add(b as f32, acc as f32) as f64,
        DType::F64 => |acc, a, b, _| a.mul_add(b, acc),
        _ => |acc, a, b, d| round(d, a.mul_add(b, acc)),
    };
    for bi in 0..batch {
        for mi in 0..m {
            let row = &mut acc[(bi * m + mi) * n..(bi * m + mi + 1) * n];
            for ki in 0..k {
                let av = x[(bi * m + mi) * k + ki];
                let b_row = &y[(bi * k + ki) * n..(bi * k + ki + 1) * n];
                for (r, &bv) in row.iter_mut().zip(b_row) {
                    *r = step(*r, av, bv, out);
                }
            }
        }
    }
    Val::new(c.shape.clone(), super::value::Data::Float(acc))
}
