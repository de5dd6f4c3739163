//! Python values as a launch's constexprs and arguments, typed as Triton types them.
//!
//! Which parameters are constexprs comes from the kernel's source (their `tl.constexpr`
//! annotations, read by the command line's signature reader), so a constexpr may be passed by
//! position or by keyword, as in Triton. Then, per value:
//! - a constexpr: `bool`, `int`, `float`, `str`, `None`, or a `tl` dtype (`tl.float16`);
//!   `tl.constexpr(v)` is `v`;
//! - a runtime argument: `bool` is `i1`; `int` is `i32`, or `i64` when the value needs it, or
//!   `u64` beyond (Triton's rule); `float` is `f32`; a torch tensor is a pointer to its element
//!   type ([`crate::torch`]); any other object with a buffer (numpy array, ...) is a pointer to its
//!   element type ([`crate::buffers`]);
//! - a numpy scalar is the Python scalar it holds, for both;
//! - a host-side `TensorDescriptor` is its base (a tensor or an array, as above) and its shape,
//!   strides, block shape and padding: the kernel takes it as `trident_frontend::descriptor_fields`.
//!
//! The checks run in the order that makes the common launch cheap: a tensor of exactly
//! `torch.Tensor` first (one pointer comparison), then Python scalars, then torch tensors (one
//! type check), then the buffer protocol. Classifying reads no data: a
//! [`Value::Host`] array is read when the launch runs ([`crate::launch`]).

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
use trident::cli::signature::Param;
use trident::ConstValue;
use trident_midend::ir::DType;

use crate::buffers::{self, HostArray, View};
use crate::key::{ArgKey, ConstKey, IntClass, Place};
use crate::torch::{self, Found, Tensor};

/// One bound parameter's value, classified.
pub enum Value<'py> {
    /// The parameter was not given (its default, the autotune configs or the heuristics give it).
    Missing,
    Const(ConstValue),
    Int {
        value: i64,
        dtype: DType,
    },
    Float(f64),
    /// An array copied through the buffer protocol (the object, or its `trident.reinterpret`
    /// base).
    Host(HostArray<'py>),
    /// A CUDA tensor (a CPU tensor is a [`Value::Host`] array).
    Torch(Tensor<'py>),
    /// A host-side `TensorDescriptor`: its base (a [`Value::Host`] or [`Value::Torch`]) and
    /// fields; the kernel takes it as `trident_frontend::descriptor_fields`.
    Descriptor(Box<Descriptor<'py>>),
}

/// A `TensorDescriptor` argument.
pub struct Descriptor<'py> {
    pub object: Bound<'py, PyAny>,
    pub base: Value<'py>,
    pub shape: Vec<i64>,
    pub strides: Vec<i64>,
    pub block_shape: Vec<i64>,
    pub padding_nan: bool,
}

impl Descriptor<'_> {
    /// Whether every stride but the last is a multiple of 16 elements (the key's integer class).
    pub fn strides16(&self) -> bool {
        self.strides[..self.strides.len() - 1].iter().all(|stride| stride % 16 == 0)
    }
}

impl<'py> Value<'py> {
    /// The value's part of the specialization key. `exact_ints` keys integers by value (the
    /// autotuner's key and the heuristics read values, not only the ==1 and %16 classes).
    pub fn key(&self, exact_ints: bool) -> ArgKey {
        match self {
            Value::Missing => ArgKey::Missing,
            Value::Const(value) => ArgKey::Const(ConstKey::of(value)),
            Value::Int { value, dtype } => {
                let class = if exact_ints {
                    IntClass::Exact(*value)
                } else if *value == 1 {
                    IntClass::One
                } else if value % 16 == 0 {
                    IntClass::Divisible16
                } else {
                    IntClass::Other
                };
                ArgKey::Int { dtype: *dtype, class }
            }
            Value::Float(_) => ArgKey::Float,
            Value::Host(array) => ArgKey::Pointer { dtype: array.dtype, aligned16: true, place: Place::Host },
            Value::Torch(tensor) => tensor.key(),
            Value::Descriptor(descriptor) => ArgKey::Descriptor {
                base: Box::new(descriptor.base.key(exact_ints)),
                strides16: descriptor.strides16(),
                block_shape: descriptor.block_shape.clone(),
                padding_nan: descriptor.padding_nan,
            },
        }
    }

    /// The value whose memory a launch reads and writes: a descriptor's base, else the value.
    pub fn memory(&self) -> &Value<'py> {
        match self {
            Value::Descriptor(descriptor) => &descriptor.base,
            other => other,
        }
    }
}

/// Classifies the value `value` of parameter `param`.
pub fn classify<'py>(param: &Param, value: Option<Bound<'py, PyAny>>) -> PyResult<Value<'py>> {
    let Some(value) = value else { return Ok(Value::Missing) };
    let name = param.name.as_str();
    if param.is_constexpr {
        return Ok(Value::Const(constexpr(name, &unwrap_constexpr(value)?)?));
    }
    // A tensor of exactly torch.Tensor, the common argument, skips the scalars' type checks.
    if !torch::is_exact_tensor(&value) {
        if let Some(scalar) = scalar(name, &value)? {
            return Ok(scalar);
        }
    }
    match torch::tensor(name, &value, None)? {
        Some(Found::Cuda(tensor)) => return Ok(Value::Torch(tensor)),
        Some(Found::Host(array)) => return Ok(Value::Host(array)),
        None => {}
    }
    match buffers::view(name, &value, None)? {
        View::Array(array) => return Ok(Value::Host(array)),
        // A numpy scalar (or 0-d array) is the Python scalar it holds.
        View::Scalar => {
            if let Some(scalar) = scalar(name, &value.call_method0("item")?)? {
                return Ok(scalar);
            }
        }
        View::None => {}
    }
    // `trident.reinterpret(x, dtype)`: a tensor or an array read as another element type.
    if let Some(pair) = value.getattr_opt("__trident_reinterpret__")? {
        let (base, dtype_name): (Bound<'py, PyAny>, String) = pair.extract()?;
        let wanted = DType::from_user_name(&dtype_name)
            .ok_or_else(|| PyTypeError::new_err(format!("{name}: unknown dtype '{dtype_name}'")))?;
        match torch::tensor(name, &base, Some(wanted))? {
            Some(Found::Cuda(mut tensor)) => {
                tensor.object = value;
                return Ok(Value::Torch(tensor));
            }
            Some(Found::Host(mut array)) => {
                array.object = value;
                return Ok(Value::Host(array));
            }
            None => {}
        }
        if let View::Array(mut array) = buffers::view(name, &base, Some(wanted))? {
            array.object = value;
            return Ok(Value::Host(array));
        }
    }
    if value.getattr_opt("__trident_tensor_descriptor__")?.is_some()
        || value.get_type().name()?.to_cow()? == "TensorDescriptor"
    {
        return descriptor(param, value);
    }
    if value.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{name}=None: None is accepted for tl.constexpr parameters only (not yet as Triton's \
             specialization of a runtime argument)"
        )));
    }
    Err(PyTypeError::new_err(format!(
        "{name}: a kernel argument must be a tensor or an array (torch, numpy, or anything with a buffer), \
         a bool, an int or a float, not {}",
        value.get_type().name()?
    )))
}

/// `tl.constexpr(v)` as `v`, a numpy scalar as its Python value; anything else as it is.
fn unwrap_constexpr(value: Bound<'_, PyAny>) -> PyResult<Bound<'_, PyAny>> {
    if value.is_instance_of::<PyInt>() || value.is_instance_of::<PyFloat>() {
        return Ok(value);
    }
    if let Some(inner) = value.getattr_opt("__trident_constexpr__")? {
        return Ok(inner);
    }
    let is_numpy = value.get_type().module().is_ok_and(|m| m.to_cow().is_ok_and(|m| m == "numpy"));
    if is_numpy && value.getattr_opt("ndim")?.is_some_and(|n| n.eq(0).unwrap_or(false)) {
        return value.call_method0("item");
    }
    Ok(value)
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

/// A runtime scalar, typed as Triton types it; `None` when `value` is no Python scalar.
pub fn scalar<'py>(name: &str, value: &Bound<'py, PyAny>) -> PyResult<Option<Value<'py>>> {
    if value.is_instance_of::<PyBool>() {
        let value = i64::from(value.extract::<bool>()?);
        return Ok(Some(Value::Int { value, dtype: DType::I1 }));
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
        return Ok(Some(Value::Int { value, dtype }));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(Some(Value::Float(value.extract()?)));
    }
    Ok(None)
}

/// A host-side `TensorDescriptor` (Triton's fields: `base`, `shape`, `strides`, `block_shape`,
/// `padding`): its base is classified as a pointer argument, its fields read as integers.
fn descriptor<'py>(param: &Param, value: Bound<'py, PyAny>) -> PyResult<Value<'py>> {
    let name = param.name.as_str();
    let fail = |what: String| {
        crate::errors::argument_error(value.py(), format!("{name}: a TensorDescriptor {what}"))
    };
    let base = classify(param, Some(value.getattr("base")?))?;
    if !matches!(base, Value::Host(_) | Value::Torch(_)) {
        return Err(fail("needs a tensor or an array as its base".to_string()));
    }
    let ints = |field: &str| -> PyResult<Vec<i64>> {
        value.getattr(field)?.try_iter()?.map(|item| item?.extract::<i64>()).collect()
    };
    let (shape, strides, block_shape) = (ints("shape")?, ints("strides")?, ints("block_shape")?);
    let rank = block_shape.len();
    if !(1..=5).contains(&rank) || shape.len() != rank || strides.len() != rank {
        return Err(fail(format!(
            "needs shape, strides and block_shape of one rank from 1 to 5, not {shape:?}, {strides:?}, {block_shape:?}"
        )));
    }
    if strides[rank - 1] != 1 {
        return Err(fail(format!(
            "needs its last stride to be 1 (contiguous rows), not {}",
            strides[rank - 1]
        )));
    }
    if let Some(bad) = shape.iter().find(|&&size| !(0..=i64::from(i32::MAX)).contains(&size)) {
        return Err(fail(format!("has a dimension of {bad}; a descriptor's dimensions are 32-bit")));
    }
    let padding: String = match value.getattr_opt("padding")? {
        Some(padding) if !padding.is_none() => padding.str()?.to_string(),
        _ => "zero".to_string(),
    };
    if padding != "zero" && padding != "nan" {
        return Err(fail(format!("has padding {padding:?}; Triton's are \"zero\" and \"nan\"")));
    }
    Ok(Value::Descriptor(Box::new(Descriptor {
        object: value,
        base,
        shape,
        strides,
        block_shape,
        padding_nan: padding == "nan",
    })))
}
