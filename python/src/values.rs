//! Python values as a launch's constexprs and arguments, typed as Triton types them.
//!
//! Which parameters are constexprs comes from the kernel's source (their `tl.constexpr`
//! annotations, read by the command line's signature reader), so a constexpr may be passed by
//! position or by keyword, as in Triton. Then, per value:
//! - a constexpr: `bool`, `int`, `float`, `str`, `None`, or a `tl` dtype (`tl.float16`);
//!   `tl.constexpr(v)` is `v`;
//! - a runtime argument: an object with a buffer (numpy array, ...) is a pointer to its element
//!   type ([`crate::buffers`]); `bool` is `i1`; `int` is `i32`, or `i64` when the value needs it,
//!   or `u64` beyond (Triton's rule); `float` is `f32`.
//!
//! Every buffer is marked 16-byte aligned: it is copied into a fresh device allocation, whatever
//! the alignment of the host array.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
use trident::cli::args::Binding;
use trident::cli::signature::Param;
use trident::{ArgSpec, ConstValue};
use trident_midend::ir::DType;

use crate::buffers::{self, PyBuffer};

/// The launch's values, sorted into constexprs and typed arguments.
#[derive(Default)]
pub struct Sorted<'py> {
    pub constexprs: Vec<(String, ConstValue)>,
    pub args: Vec<(String, ArgSpec, Binding)>,
    /// The buffers, in the order that [`Binding::Buffer`] indexes.
    pub buffers: Vec<PyBuffer<'py>>,
}

/// Sorts `values` (by Python parameter name) with the kernel's parameters `params`.
pub fn sort<'py>(
    kernel: &str,
    params: &[Param],
    values: Vec<(String, Bound<'py, PyAny>)>,
) -> PyResult<Sorted<'py>> {
    let mut sorted = Sorted::default();
    for (name, value) in values {
        let Some(param) = params.iter().find(|p| p.name == name) else {
            return Err(PyTypeError::new_err(format!(
                "{kernel}() got an unexpected argument '{name}' (its parameters: {})",
                params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        };
        let value = unwrap_constexpr(value)?;
        if param.is_constexpr {
            sorted.constexprs.push((name.clone(), constexpr(&name, &value)?));
            continue;
        }
        if let Some(buffer) = buffers::read(&name, &value)? {
            let arg = ArgSpec::Pointer { dtype: buffer.buffer.dtype, aligned16: true };
            sorted.args.push((name, arg, Binding::Buffer(sorted.buffers.len())));
            sorted.buffers.push(buffer);
            continue;
        }
        let (arg, binding) = scalar(&name, &value)?;
        sorted.args.push((name, arg, binding));
    }
    Ok(sorted)
}

/// `tl.constexpr(v)` as `v`; anything else as it is.
fn unwrap_constexpr(value: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    match value.getattr_opt("__trident_constexpr__")? {
        Some(inner) => Ok(inner),
        None => Ok(value),
    }
}

/// A constexpr's value.
fn constexpr(name: &str, value: &Bound<'_, PyAny>) -> PyResult<ConstValue> {
    if value.is_none() {
        return Ok(ConstValue::None);
    }
    if value.is_instance_of::<PyBool>() {
        return Ok(ConstValue::Bool(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        let int: i64 = value.extract().map_err(|_| {
            PyTypeError::new_err(format!("{name}={value}: a constexpr integer must fit in 64 bits"))
        })?;
        return Ok(ConstValue::Int(int));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(ConstValue::Float(value.extract()?));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(ConstValue::Str(value.extract()?));
    }
    if let Some(dtype) = dtype_of(value)? {
        return Ok(ConstValue::DType(dtype));
    }
    Err(PyTypeError::new_err(format!(
        "{name}: a tl.constexpr must be a bool, int, float, str, None or a tl dtype, not {}",
        value.get_type().name()?
    )))
}

/// The dtype of a `tl` dtype object (`tl.float16`), `None` for other objects.
fn dtype_of(value: &Bound<'_, PyAny>) -> PyResult<Option<DType>> {
    let Some(name) = value.getattr_opt("__trident_dtype__")? else { return Ok(None) };
    let name: String = name.extract()?;
    Ok(DType::from_user_name(&name))
}

/// A runtime scalar, typed as Triton types it.
fn scalar(name: &str, value: &Bound<'_, PyAny>) -> PyResult<(ArgSpec, Binding)> {
    if value.is_instance_of::<PyBool>() {
        let value = i64::from(value.extract::<bool>()?);
        return Ok((ArgSpec::Int { value, dtype: DType::I1 }, Binding::Int(value)));
    }
    if value.is_instance_of::<PyInt>() {
        let (value, dtype) = if let Ok(small) = value.extract::<i32>() {
            (i64::from(small), DType::I32)
        } else if let Ok(wide) = value.extract::<i64>() {
            (wide, DType::I64)
        } else if let Ok(unsigned) = value.extract::<u64>() {
            // u64 values above i64::MAX travel as their two's-complement bits.
            (unsigned as i64, DType::U64)
        } else {
            return Err(PyTypeError::new_err(format!("{name}={value}: the integer does not fit in 64 bits")));
        };
        return Ok((ArgSpec::Int { value, dtype }, Binding::Int(value)));
    }
    if value.is_instance_of::<PyFloat>() {
        let value: f64 = value.extract()?;
        return Ok((ArgSpec::Float { value, dtype: DType::F32 }, Binding::Float(value)));
    }
    if value.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{name}=None: None is accepted for tl.constexpr parameters only (not yet as Triton's \
             specialization of a runtime argument)"
        )));
    }
    Err(PyTypeError::new_err(format!(
        "{name}: a kernel argument must be an array (numpy, or anything with a buffer), a bool, an int or \
         a float, not {}",
        value.get_type().name()?
    )))
}
