//! Python arrays as launch buffers: read through the buffer protocol before the launch, written
//! back after it.
//!
//! Any object that exports a buffer works (numpy arrays, `array.array`, `bytearray`); its element
//! type comes from the buffer's struct format (`e` float16, `f` float32, `d` float64, `b`/`B` int8
//! and uint8, up to `q`/`Q`, `?` bool). The stable ABI of Python 3.9 has no buffer-protocol calls,
//! so this module goes through `memoryview` objects: `tobytes()` to read, and an assignment to a
//! byte view to write back. Both need C-contiguous data: a strided view would be copied in an order
//! the kernel's pointer arithmetic does not expect, so it is refused with the fix in the message.
//!
//! bf16 and fp8 have no numpy dtype: `trident.reinterpret(array, tl.bfloat16)` wraps 16-bit
//! (8-bit for fp8) integer data, as Triton's `triton.reinterpret`, and the wrapper reaches this
//! module as the object with a `__trident_reinterpret__` attribute (`(base, dtype name)`).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PySlice};
use trident_midend::ir::DType;
use trident_runtime::{npy, Buffer};

/// A buffer argument: its data, and the view it is written back through.
pub struct PyBuffer<'py> {
    pub buffer: Buffer,
    /// `None` for a read-only buffer: nothing is written back.
    view: Option<Bound<'py, PyAny>>,
}

/// Reads `object` as a buffer named `name`; `Ok(None)` when it exports no buffer.
pub fn read<'py>(name: &str, object: &Bound<'py, PyAny>) -> PyResult<Option<PyBuffer<'py>>> {
    let (base, wanted) = match object.getattr_opt("__trident_reinterpret__")? {
        Some(pair) => {
            let (base, dtype_name): (Bound<'py, PyAny>, String) = pair.extract()?;
            let wanted = DType::from_user_name(&dtype_name).ok_or_else(|| {
                pyo3::exceptions::PyTypeError::new_err(format!("{name}: unknown dtype '{dtype_name}'"))
            })?;
            (base, Some(wanted))
        }
        None => (object.clone(), None),
    };
    let Ok(view) = PyMemoryView::from(&base) else { return Ok(None) };
    if !view.getattr("c_contiguous")?.extract::<bool>()? {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name}: the array is not C-contiguous (a strided view); trident copies buffers to the \
             device as they lie in memory, so pass np.ascontiguousarray({name}) and copy the result back"
        )));
    }
    let format: String = view.getattr("format")?.extract()?;
    let itemsize: usize = view.getattr("itemsize")?.extract()?;
    let storage = storage_dtype(&format, itemsize).ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "{name}: arrays of format '{format}' ({itemsize}-byte elements) are not supported: bool, \
             int8..int64, uint8..uint64 and float16/32/64 are (bf16 and fp8 through trident.reinterpret)"
        ))
    })?;
    let dtype = npy::kernel_dtype(storage, wanted)
        .map_err(|e| pyo3::exceptions::PyTypeError::new_err(format!("{name}: {e}")))?;
    let shape: Vec<usize> = view.getattr("shape")?.extract()?;
    let bytes_object = view.call_method0("tobytes")?;
    let bytes = bytes_object.cast::<PyBytes>()?.as_bytes().to_vec();
    let readonly: bool = view.getattr("readonly")?.extract()?;
    let buffer = Buffer { name: name.to_string(), dtype, storage, shape, bytes };
    let view = if readonly { None } else { Some(view.into_any()) };
    Ok(Some(PyBuffer { buffer, view }))
}

/// Writes `bytes` (a buffer as the kernel left it) back into the Python object it came from.
pub fn write_back(py: Python<'_>, target: &PyBuffer<'_>, bytes: &[u8]) -> PyResult<()> {
    let Some(view) = &target.view else { return Ok(()) };
    if bytes == target.buffer.bytes.as_slice() {
        return Ok(());
    }
    let flat = view.call_method1("cast", ("B",))?;
    flat.set_item(PySlice::full(py), PyBytes::new(py, bytes))
}

/// The element type of a buffer of struct format `format` (`<f`, `e`, `?`, ...) with elements of
/// `itemsize` bytes; `None` for formats a kernel cannot take.
pub fn storage_dtype(format: &str, itemsize: usize) -> Option<DType> {
    // Native order is little-endian on every machine trident runs on; `>` and `!` are big-endian.
    let code = format.strip_prefix(['@', '=', '<']).unwrap_or(format);
    let dtype = match (code, itemsize) {
        ("?", 1) => DType::I1,
        ("b", 1) => DType::I8,
        ("B", 1) => DType::U8,
        ("h", 2) => DType::I16,
        ("H", 2) => DType::U16,
        ("i" | "l", 4) => DType::I32,
        ("I" | "L", 4) => DType::U32,
        ("l" | "q", 8) => DType::I64,
        ("L" | "Q", 8) => DType::U64,
        ("e", 2) => DType::F16,
        ("f", 4) => DType::F32,
        ("d", 8) => DType::F64,
        _ => return None,
    };
    Some(dtype)
}
