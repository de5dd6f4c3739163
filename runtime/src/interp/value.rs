//! Runtime values: a shape plus flat row-major element storage.
//!
//! A [`Val`] does not carry its dtype: the IR type of the SSA value it is bound to says what the
//! elements mean (see `numerics.rs` for the integer and float invariants). The storage variant
//! only says how elements are held: integers (every integer dtype, `i1` included) as canonical
//! `i64`, floats as `f64`, pointers as (buffer, byte offset), descriptors as one shared record.
//!
//! A value of numel 1 broadcasts against any shape in elementwise ops: combine regions of
//! `tt.reduce`/`tt.scan` declare scalar block arguments but are evaluated on whole tensors, and
//! the constants they define stay scalars.

use std::rc::Rc;

use super::RuntimeError;

/// The interpreter's result type.
pub type Res<T> = Result<T, RuntimeError>;

/// An error without a span yet; the op evaluator attaches the span of the failing op.
pub fn err<T>(message: impl Into<String>) -> Res<T> {
    Err(RuntimeError { message: message.into(), span: None })
}

/// A global-memory pointer: a buffer and a byte offset into it (which may be out of bounds:
/// only an access checks it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ptr {
    pub buf: u32,
    pub off: i64,
}

/// A tensor descriptor (`tt.make_tensor_descriptor`).
#[derive(Clone, Debug)]
pub struct Desc {
    pub base: Ptr,
    /// The global tensor's extent per dimension, in elements.
    pub shape: Vec<i64>,
    /// Strides per dimension, in elements.
    pub strides: Vec<i64>,
    /// Out-of-bounds elements read NaN instead of zero.
    pub padding_nan: bool,
}

/// Element storage.
#[derive(Clone, Debug)]
pub enum Data {
    Int(Vec<i64>),
    Float(Vec<f64>),
    Ptr(Vec<Ptr>),
    Desc(Rc<Desc>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::Int(v) => v.len(),
            Data::Float(v) => v.len(),
            Data::Ptr(v) => v.len(),
            Data::Desc(_) => 1,
        }
    }

    /// The elements at `indices`, in that order.
    pub fn gather(&self, indices: &[usize]) -> Data {
        match self {
            Data::Int(v) => Data::Int(indices.iter().map(|&i| v[i]).collect()),
            Data::Float(v) => Data::Float(indices.iter().map(|&i| v[i]).collect()),
            Data::Ptr(v) => Data::Ptr(indices.iter().map(|&i| v[i]).collect()),
            Data::Desc(d) => Data::Desc(d.clone()),
        }
    }

    /// Writes the elements of `src` at positions `indices` of `self` (same variants).
    pub fn scatter(&mut self, indices: &[usize], src: &Data) -> Res<()> {
        match (self, src) {
            (Data::Int(dst), Data::Int(s)) => indices.iter().zip(s).for_each(|(&i, &x)| dst[i] = x),
            (Data::Float(dst), Data::Float(s)) => indices.iter().zip(s).for_each(|(&i, &x)| dst[i] = x),
            (Data::Ptr(dst), Data::Ptr(s)) => indices.iter().zip(s).for_each(|(&i, &x)| dst[i] = x),
            _ => return err("internal: mismatched element storage in a combine region"),
        }
        Ok(())
    }
}

/// A runtime value: a scalar (empty shape) or a tensor.
#[derive(Clone, Debug)]
pub struct Val {
    pub shape: Vec<usize>,
    pub data: Data,
}

impl Val {
    pub fn new(shape: Vec<usize>, data: Data) -> Res<Val> {
        let numel: usize = shape.iter().product();
        if numel != data.len() {
            return err(format!("internal: shape {shape:?} holds {numel} elements, not {}", data.len()));
        }
        Ok(Val { shape, data })
    }

    pub fn scalar_int(x: i64) -> Val {
        Val { shape: Vec::new(), data: Data::Int(vec![x]) }
    }

    pub fn numel(&self) -> usize {
        self.data.len()
    }

    pub fn ints(&self) -> Res<&[i64]> {
        match &self.data {
            Data::Int(v) => Ok(v),
            _ => err("expected an integer value"),
        }
    }

    pub fn floats(&self) -> Res<&[f64]> {
        match &self.data {
            Data::Float(v) => Ok(v),
            _ => err("expected a float value"),
        }
    }

    pub fn ptrs(&self) -> Res<&[Ptr]> {
        match &self.data {
            Data::Ptr(v) => Ok(v),
            _ => err("expected a pointer value"),
        }
    }

    /// The single integer of a scalar (or one-element) value.
    pub fn scalar_i64(&self) -> Res<i64> {
        match self.ints()? {
            [x] => Ok(*x),
            v => err(format!("expected a scalar integer, got {} elements", v.len())),
        }
    }

    /// The same elements under another shape of equal element count.
    pub fn reshaped(&self, shape: Vec<usize>) -> Res<Val> {
        Val::new(shape, self.data.clone())
    }

    /// This value stretched to `shape`: a one-element value is splatted; otherwise the element
    /// count must already match.
    pub fn broadcast_numel(&self, shape: &[usize]) -> Res<Val> {
        let numel: usize = shape.iter().product();
        if self.numel() == numel {
            return Val::new(shape.to_vec(), self.data.clone());
        }
        if self.numel() == 1 {
            return Val::new(shape.to_vec(), self.data.gather(&vec![0; numel]));
        }
        err(format!("cannot broadcast a value of shape {:?} to {shape:?}", self.shape))
    }
}

/// The shape of an elementwise op's result: the operands' common shape, one-element operands
/// broadcasting.
pub fn elementwise_shape(vals: &[&Val]) -> Res<Vec<usize>> {
    let widest = vals.iter().find(|v| v.numel() != 1).or_else(|| vals.iter().max_by_key(|v| v.shape.len()));
    let Some(widest) = widest else {
        return Ok(Vec::new());
    };
    for v in vals {
        if v.numel() != 1 && v.numel() != widest.numel() {
            return err(format!("elementwise operands of shapes {:?} and {:?}", widest.shape, v.shape));
        }
    }
    Ok(widest.shape.clone())
}

/// Index into an operand that may be a broadcast one-element value.
#[inline]
pub fn lane(len: usize, i: usize) -> usize {
    if len == 1 {
        0
    } else {
        i
    }
}

/// Row-major strides of `shape`.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut out = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        out[d] = out[d + 1] * shape[d + 1];
    }
    out
}

/// Flat indices of the elements whose coordinate along `axis` is each of `positions` (in that
/// order), for a tensor of `shape`: the gather list for a slice along one axis. The result
/// has shape `shape` with `shape[axis]` replaced by `positions.len()`.
pub fn axis_indices(shape: &[usize], axis: usize, positions: &[usize]) -> Vec<usize> {
    let outer: usize = shape[..axis].iter().product();
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = Vec::with_capacity(outer * positions.len() * inner);
    for o in 0..outer {
        for &p in positions {
            let base = (o * len + p) * inner;
            out.extend(base..base + inner);
        }
    }
    out
}

/// `val` restricted to `positions` along `axis`.
pub fn take_along(val: &Val, axis: usize, positions: &[usize]) -> Val {
    let indices = axis_indices(&val.shape, axis, positions);
    let mut shape = val.shape.clone();
    shape[axis] = positions.len();
    Val { shape, data: val.data.gather(&indices) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_slices_are_row_major() {
        // shape [2, 3]: take columns 2 and 0.
        assert_eq!(axis_indices(&[2, 3], 1, &[2, 0]), vec![2, 0, 5, 3]);
        assert_eq!(axis_indices(&[2, 3], 0, &[1]), vec![3, 4, 5]);
        assert_eq!(strides(&[2, 3, 4]), vec![12, 4, 1]);
    }
}
