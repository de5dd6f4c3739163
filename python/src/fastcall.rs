//! `kernel[grid](...)` through the vectorcall protocol: the launch's arguments arrive as the
//! interpreter holds them, an array and the keywords' names, with no tuple or dict built.
//!
//! A [`Launcher`] is a pyclass whose `__call__` PyO3 exposes through `tp_call`: the interpreter
//! packs the positional arguments into a new tuple and the keywords into a new dict at every
//! call, and the binding unpacks them again (the `BLOCK=...` keywords of a Triton launch alone
//! made a call a tenth of a microsecond dearer). A builtin function object of
//! `METH_FASTCALL | METH_KEYWORDS` receives vectorcall's arguments directly, so on Pythons where
//! the stable ABI has that convention (3.10 on) `kernel[grid]` is such a function, bound to the
//! launcher (its `__self__`); on 3.9 it is the launcher itself.

use std::ffi::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use pyo3::ffi;
use pyo3::panic::PanicException;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::kernel::Launcher;
use crate::key::PerParam;

/// `METH_FASTCALL`: in the stable ABI from Python 3.10 on, so PyO3's bindings for 3.9 leave it out.
const METH_FASTCALL: c_int = 0x0080;

/// A `METH_FASTCALL | METH_KEYWORDS` function: self, the arguments (positional ones, then one
/// value per keyword name), the positional count, and the keyword names (a tuple, or null).
type FastWithKeywords = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    ffi::Py_ssize_t,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

/// The method definition that every launch function points at (CPython only reads it).
struct MethodDef(ffi::PyMethodDef);

// SAFETY: the definition is immutable, and its pointers are to static strings and a function.
unsafe impl Sync for MethodDef {}

static LAUNCH: MethodDef = MethodDef(ffi::PyMethodDef {
    ml_name: c"launch".as_ptr(),
    // SAFETY: CPython calls `ml_meth` with the signature its flags name, METH_FASTCALL |
    // METH_KEYWORDS here: `launch`'s. The field's declared type is only its storage.
    ml_meth: ffi::PyMethodDefPointer {
        PyCFunction: unsafe { std::mem::transmute::<FastWithKeywords, ffi::PyCFunction>(launch) },
    },
    ml_flags: METH_FASTCALL | ffi::METH_KEYWORDS,
    ml_doc: c"Launches the kernel over the grid: kernel[grid](*args, **kwargs).".as_ptr(),
});

/// What `kernel[grid]` returns for `launcher`: a vectorcall function bound to it where the
/// interpreter's stable ABI has them, else the launcher.
pub fn callable(launcher: Bound<'_, Launcher>) -> PyResult<Bound<'_, PyAny>> {
    let py = launcher.py();
    if !fast_calls(py) {
        return Ok(launcher.into_any());
    }
    let definition = &LAUNCH.0 as *const ffi::PyMethodDef as *mut ffi::PyMethodDef;
    // SAFETY: the definition is static; the new function holds a reference to the launcher.
    unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyCFunction_NewEx(definition, launcher.as_ptr(), std::ptr::null_mut()),
        )
    }
}

/// Whether this interpreter is Python 3.10 or later.
fn fast_calls(py: Python<'_>) -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| py.version_info() >= (3, 10))
}

/// The launch function: launches with the call's arguments as `Launcher.__call__` does, by the
/// kernel's plan where the call fits it ([`Launcher::call_vectored`]).
unsafe extern "C" fn launch(
    launcher: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    count: ffi::Py_ssize_t,
    keyword_names: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // The interpreter calls a builtin function on a thread attached to it; `attach` tells PyO3
    // so (a function entered from C without PyO3's own trampoline would otherwise have its
    // references dropped later, through PyO3's deferred pool).
    Python::attach(|py| {
        let outcome = catch_unwind(AssertUnwindSafe(|| -> PyResult<()> {
            // SAFETY: `launcher` is the object `callable` bound the function to, alive while the
            // function is; `keyword_names` is a tuple or null; `args` holds `count` positional values
            // and then one per keyword name, borrowed for the call.
            let launcher = unsafe { Bound::from_borrowed_ptr(py, launcher) }.cast_into::<Launcher>()?;
            let names = match keyword_names.is_null() {
                true => None,
                false => Some(unsafe { Bound::from_borrowed_ptr(py, keyword_names) }.cast_into::<PyTuple>()?),
            };
            let count = usize::try_from(count).unwrap_or(0);
            let total = count + names.as_ref().map_or(0, |names| names.len());
            let values: &[*mut ffi::PyObject] =
                if total == 0 { &[] } else { unsafe { std::slice::from_raw_parts(args, total) } };
            let args: PerParam<Bound<'_, PyAny>> =
                values.iter().map(|pointer| unsafe { Bound::from_borrowed_ptr(py, *pointer) }).collect();
            launcher.get().call_vectored(py, &args, count, names.as_ref())
        }));
        let error = match outcome {
            Ok(Ok(())) => return py.None().into_ptr(),
            Ok(Err(error)) => error,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|text| text.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic in trident's launch".to_string());
                PanicException::new_err(message)
            }
        };
        error.restore(py);
        std::ptr::null_mut()
    })
}
