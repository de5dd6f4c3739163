//! The grid of a launch, from what `kernel[grid]` was given.
//!
//! As in Triton, `grid` is a tuple (or list) of one to three integers, an integer, or a function
//! of a dict of the kernel's arguments and meta-parameters (the constexprs after the autotune
//! config and the heuristics) that returns one of those. The function is called for every
//! launch (and, while autotuning, for every timed config); an exception it raises reaches the
//! caller as it is.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyTuple};
use smallvec::SmallVec;
use trident::ConstValue;
use trident_runtime::Grid;

use crate::errors;

/// The grid for a launch with arguments `values` (by parameter name) and meta-parameters
/// `meta`.
pub fn compute<'py>(
    py: Python<'py>,
    kernel: &str,
    grid: &Bound<'py, PyAny>,
    values: &[(&str, &Bound<'py, PyAny>)],
    meta: &[(String, ConstValue)],
) -> PyResult<Grid> {
    if grid.is_callable() {
        let dict = PyDict::new(py);
        for (name, value) in values {
            dict.set_item(*name, *value)?;
        }
        for (name, value) in meta {
            dict.set_item(name, const_object(py, value)?)?;
        }
        let dims = grid.call1((dict,))?;
        return three_dims(py, kernel, &dims);
    }
    three_dims(py, kernel, grid)
}

/// `(x, y, z)` from a tuple or list of one to three non-negative integers, or one integer.
fn three_dims(py: Python<'_>, kernel: &str, dims: &Bound<'_, PyAny>) -> PyResult<Grid> {
    // A grid is read at every launch: its items stay off the heap.
    let items: SmallVec<[Bound<'_, PyAny>; 3]> = if let Ok(tuple) = dims.cast::<PyTuple>() {
        tuple.iter().collect()
    } else if let Ok(list) = dims.cast::<PyList>() {
        list.iter().collect()
    } else {
        smallvec::smallvec![dims.clone()]
    };
    let shown = || dims.repr().map(|r| r.to_string()).unwrap_or_default();
    if !(1..=3).contains(&items.len()) {
        let message =
            format!("{kernel}: the grid {} has {} dimensions; a grid has 1 to 3", shown(), items.len());
        return Err(errors::argument_error(py, message));
    }
    let mut numbers = [1i64; 3];
    for (slot, item) in numbers.iter_mut().zip(&items) {
        *slot = item.extract::<i64>().map_err(|_| {
            errors::argument_error(py, format!("{kernel}: the grid {} must hold integers", shown()))
        })?;
    }
    let given = &numbers[..items.len()];
    if given.iter().any(|&n| n < 0) {
        let text = given.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
        let text = if given.len() == 1 { format!("({text},)") } else { format!("({text})") };
        return Err(errors::argument_error(
            py,
            format!("{kernel}: the grid {text} has a negative dimension"),
        ));
    }
    let mut grid = [1u32; 3];
    for (slot, number) in grid.iter_mut().zip(numbers) {
        *slot = u32::try_from(number).map_err(|_| {
            errors::argument_error(
                py,
                format!("the grid of {kernel}: {number} programs along one axis is too many"),
            )
        })?;
    }
    let grid = Grid(grid);
    grid.within_limits().map_err(|e| errors::argument_error(py, format!("the grid of {kernel}: {e}")))?;
    Ok(grid)
}

/// Whether `grid`'s dimensions can never change, so a launcher may read them once: an `int`, or a
/// tuple of `int`s (exactly those types: immutable, and read without calling Python code). A list
/// may be changed between launches, and a function is called at each.
pub fn is_fixed(grid: &Bound<'_, PyAny>) -> bool {
    if grid.is_exact_instance_of::<PyInt>() {
        return true;
    }
    grid.cast_exact::<PyTuple>()
        .is_ok_and(|tuple| tuple.iter().all(|item| item.is_exact_instance_of::<PyInt>()))
}

/// A constexpr value as the grid function sees it.
pub fn const_object<'py>(py: Python<'py>, value: &ConstValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        ConstValue::Int(v) => v.into_pyobject(py)?.into_any(),
        ConstValue::Float(v) => v.into_pyobject(py)?.into_any(),
        ConstValue::Bool(v) => v.into_pyobject(py)?.to_owned().into_any(),
        ConstValue::Str(v) => v.into_pyobject(py)?.into_any(),
        ConstValue::None => py.None().into_bound(py),
        ConstValue::DType(d) => py.import("trident.language")?.getattr("dtype")?.call1((d.triton_name(),))?,
    })
}
