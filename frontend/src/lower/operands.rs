//! Which kinds of runtime value an operation takes: numbers, pointers, tensor descriptors.
//!
//! A runtime value is a scalar or tensor of numbers (`int32`, `fp16`, ...), of pointers
//! (`pointer<fp32>`), or a tensor descriptor. The IR type of a pointer carries its pointee's dtype
//! and a descriptor's carries its element dtype, so a check written as "the dtype is fp32" also
//! lets `pointer<fp32>` and a descriptor of fp32 through, and the op built from it then fails the
//! IR verifier: an internal error instead of the user error Triton gives at the Python line. The
//! rules here are the ones Triton's `semantic.py` applies, one per kind, and every builtin goes
//! through them instead of reading dtypes itself:
//!
//! - Arithmetic, math functions, comparisons between numbers, reductions, scans, sorting, histograms
//!   and masks take numbers ([`FnLowerer::number`], [`FnLowerer::number_dtype`]); pointers have
//!   their own few operations (`+` and `-` of an integer offset, comparison with a pointer of the
//!   same type, `tl.where` between two pointers of one type, loads, stores and atomics).
//! - The float math functions (`tl.exp`, `tl.sqrt`, ...) take fp32 or fp64 numbers
//!   ([`FnLowerer::float_operand`]), as Triton's `_check_dtype` does.
//! - A tensor descriptor is used only through its methods (`desc.load`, `desc.store`),
//!   `tl.load_tensor_descriptor` / `tl.store_tensor_descriptor`, and by being passed to a
//!   `@triton.jit` function or carried through a loop or branch: [`FnLowerer::to_value`] refuses
//!   it everywhere else ([`descriptor_misuse`]), which covers every builtin at once.
//! - Shapes, strides and offsets of tensor descriptors are integer scalars
//!   ([`FnLowerer::int_scalar`]).

use trident_midend::ir::{DType, Type, Value};

use super::{FnLowerer, LResult};
use crate::value::FValue;

/// The error for a tensor descriptor used as a value (see the module doc).
pub fn descriptor_misuse(ty: &Type) -> String {
    format!(
        "this is a tensor descriptor ({}), which is used only through desc.load / desc.store, \
         tl.load_tensor_descriptor / tl.store_tensor_descriptor, or by passing it to a @triton.jit function",
        type_name(ty)
    )
}

/// Triton's name for the element type of a value of type `ty`, as its error messages print it:
/// `fp32`, `pointer<fp32>`, `tensor_descriptor<fp16, [64, 64]>`.
pub fn type_name(ty: &Type) -> String {
    match ty {
        Type::Desc { dtype, block } => format!("tensor_descriptor<{}, {block:?}>", dtype.triton_name()),
        _ if ty.is_ptr() => format!("pointer<{}>", ty.dtype().triton_name()),
        _ => ty.dtype().triton_name().to_string(),
    }
}

impl FnLowerer<'_, '_> {
    /// Triton's name for the element type of `v` (see [`type_name`]).
    pub fn elem_name(&self, v: Value) -> String {
        type_name(self.func.body.ty(v))
    }

    /// The dtype of `v` if it is a number or a tensor of numbers; `None` for pointers and
    /// descriptors.
    pub fn number_dtype(&self, v: Value) -> Option<DType> {
        let ty = self.func.body.ty(v);
        (!ty.is_ptr() && !ty.is_desc()).then(|| ty.dtype())
    }

    /// The dtype of `v`, which `what` (a function or an operator, as the user wrote it) computes
    /// with: an error naming the pointer when `v` holds pointers.
    pub fn expect_number(&self, v: Value, what: &str) -> LResult<DType> {
        match self.number_dtype(v) {
            Some(d) => Ok(d),
            None => self.error(format!("{what} takes numbers, got {}", self.elem_name(v))),
        }
    }

    /// `v` as a number or tensor of numbers for `what` (Python scalars become constants).
    pub fn number(&mut self, v: &FValue, what: &str) -> LResult<Value> {
        let x = self.to_value(v)?;
        self.expect_number(x, what)?;
        Ok(x)
    }

    /// The operand of a float math function (`tl.exp`, `tl.sqrt`, ...): fp32 or fp64 numbers only,
    /// as Triton requires (`Expected dtype ['fp32', 'fp64'] but got ...`).
    pub fn float_operand(&mut self, v: &FValue, func: &str) -> LResult<Value> {
        let x = self.to_value(v)?;
        match self.number_dtype(x) {
            Some(DType::F32 | DType::F64) => Ok(x),
            Some(_) => self.error(format!(
                "{func} expects fp32 or fp64, got {}; cast first, e.g. x.to(tl.float32)",
                self.elem_name(x)
            )),
            None => self.error(format!("{func} expects fp32 or fp64, got {}", self.elem_name(x))),
        }
    }

    /// An integer scalar: one entry of a tensor descriptor's shape, strides or offsets (`what`
    /// names the list), as Triton's `_convert_elem_to_ir_value` requires.
    pub fn int_scalar(&mut self, v: &FValue, what: &str) -> LResult<Value> {
        let x = self.to_value(v)?;
        let ty = self.ty(x);
        if ty.is_tensor() {
            return self
                .error(format!("{what} must be integer scalars, got a tensor of shape {:?}", ty.shape()));
        }
        match self.number_dtype(x) {
            Some(d) if d.is_int() => Ok(x),
            _ => self.error(format!("{what} must be integer scalars, got {}", self.elem_name(x))),
        }
    }
}
