//! A launch's Python arguments bound to the kernel's parameters, as Python binds a call.
//!
//! `kernel[grid](*args, **kwargs)` hands its positional and keyword arguments over as they are;
//! binding them here instead of through `inspect.Signature.bind_partial` saves a few
//! microseconds per launch, which is most of a repeat launch's budget. The rules are Python's:
//! positionals fill the parameters in order, keywords by name, and too many positionals, an
//! unknown keyword or a parameter given twice is a `TypeError` worded as Python words it. A
//! parameter left out is `None` here: trident reports it later if nothing gives it (a default,
//! `@triton.autotune`, `@triton.heuristics`), since only the frontend knows.
//!
//! Triton's launch options (`num_warps`, `num_stages`, ...) travel among the keywords; they are
//! taken out first, unless the kernel has a parameter of that name.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use trident::cli::signature::Param;

use crate::key::PerParam;

/// Triton's launch options that trident reads, or refuses with a reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub num_warps: u32,
    pub num_stages: u32,
    /// `num_ctas` other than 1 (refused: trident launches one CTA per program).
    pub num_ctas: i64,
    /// `maxnreg` was given (warned about: not applied).
    pub maxnreg: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { num_warps: 4, num_stages: 3, num_ctas: 1, maxnreg: false }
    }
}

/// The launch options Triton's `JITFunction.run` takes out of the keywords.
pub const OPTIONS: [&str; 7] = [
    "num_warps",
    "num_stages",
    "num_ctas",
    "maxnreg",
    "enable_fp_fusion",
    "debug",
    "launch_cooperative_grid",
];

/// The bound values, by parameter index, and the options.
pub struct Bound<'py> {
    pub values: PerParam<Option<pyo3::Bound<'py, PyAny>>>,
    pub options: Options,
}

/// Binds the `positional` and `keywords` (name, value) arguments of a call to `params` of kernel
/// `kernel`, however the interpreter passed them (a tuple and a dict, or vectorcall's array and
/// names: [`crate::fastcall`]). `names` are the parameters' names as interned Python strings: a
/// keyword written at a call site is the interpreter's interned string of that name, so it is
/// found by identity, without reading it as UTF-8 (which, in the stable ABI of Python 3.9, copies
/// it into a new bytes object at every launch).
pub fn bind<'py>(
    kernel: &str,
    params: &[Param],
    names: &[Py<PyString>],
    positional: impl ExactSizeIterator<Item = pyo3::Bound<'py, PyAny>>,
    keywords: impl Iterator<Item = (pyo3::Bound<'py, PyAny>, pyo3::Bound<'py, PyAny>)>,
) -> PyResult<Bound<'py>> {
    let mut values: PerParam<Option<pyo3::Bound<'py, PyAny>>> = smallvec::smallvec![None; params.len()];
    if positional.len() > params.len() {
        return Err(PyTypeError::new_err(format!(
            "too many positional arguments: {kernel}() takes {} but {} were given",
            params.len(),
            positional.len()
        )));
    }
    for (slot, value) in values.iter_mut().zip(positional) {
        *slot = Some(value);
    }
    let mut options = Options::default();
    for (key, value) in keywords {
        // By identity first; by name for keywords built at run time, and for the options.
        let index = match names.iter().position(|n| n.as_ptr() == key.as_ptr()) {
            Some(index) => index,
            None => {
                let name = key.cast::<PyString>()?;
                let name = name.to_cow()?;
                let name = name.as_ref();
                match params.iter().position(|p| p.name == name) {
                    Some(index) => index,
                    None if OPTIONS.contains(&name) => {
                        option(kernel, &mut options, name, &value)?;
                        continue;
                    }
                    None => {
                        return Err(PyTypeError::new_err(format!(
                            "got an unexpected keyword argument '{name}'"
                        )));
                    }
                }
            }
        };
        if values[index].is_some() {
            let name = &params[index].name;
            return Err(PyTypeError::new_err(format!("multiple values for argument '{name}'")));
        }
        values[index] = Some(value);
    }
    Ok(Bound { values, options })
}

/// Reads one launch option.
fn option(kernel: &str, options: &mut Options, name: &str, value: &pyo3::Bound<'_, PyAny>) -> PyResult<()> {
    let count = |value: &pyo3::Bound<'_, PyAny>| -> PyResult<u32> {
        value.extract::<u32>().map_err(|_| {
            PyTypeError::new_err(format!("{kernel}: {name}={value}: must be a non-negative integer"))
        })
    };
    match name {
        "num_warps" => options.num_warps = count(value)?,
        "num_stages" => options.num_stages = count(value)?,
        "num_ctas" => options.num_ctas = value.extract::<i64>().unwrap_or(0),
        "maxnreg" => options.maxnreg = !value.is_none(),
        // enable_fp_fusion, debug, launch_cooperative_grid: accepted, as Triton's defaults.
        _ => {}
    }
    Ok(())
}
