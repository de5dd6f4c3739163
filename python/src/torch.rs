//! torch tensors as kernel arguments (not yet: the next step of the Python package).

use pyo3::prelude::*;
use trident_midend::ir::DType;

use crate::key::ArgKey;

/// A torch tensor argument.
pub struct Tensor<'py> {
    _object: Bound<'py, PyAny>,
}

impl<'py> Tensor<'py> {
    pub fn key(&self) -> ArgKey {
        ArgKey::Missing
    }

    pub fn object(&self) -> Bound<'py, PyAny> {
        self._object.clone()
    }
}

/// `value` as a tensor argument, `None` when it is no torch tensor.
pub fn tensor<'py>(
    _name: &str,
    _value: &Bound<'py, PyAny>,
    _wanted: Option<DType>,
) -> PyResult<Option<Tensor<'py>>> {
    Ok(None)
}
