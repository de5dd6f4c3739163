//! Python arrays as launch buffers: read through the buffer protocol before the launch, written
//! back after it.
//!
//! Any object that exports a buffer works (numpy arrays, `array.array`, `bytearray`); its element
//! type comes from the buffer's struct format (`e` float16, `f` float32, `d` float64, `b`/`B` int8
//! and uint8, up to `q`/`Q`, `?` bool). The data must be C-contiguous: a strided view would be
//! copied in an order the kernel's pointer arithmetic does not expect, so it is refused with the
//! fix in the message.
//!
//! The buffer is taken with `PyObject_GetBuffer` and held until the launch is over (dropping the
//! [`HostArray`] releases it): reading is one copy out of the array's memory, writing back one
//! copy into it, with no Python objects made on the way (a repeat launch's budget is a few
//! microseconds). The buffer calls entered CPython's stable ABI in 3.11, but exist with the same
//! signatures and the same `Py_buffer` layout in every CPython 3 (the struct has not changed since
//! 3.3), so this abi3 module for 3.9 declares them itself.
//!
//! bf16 and fp8 have no numpy dtype: `trident.reinterpret(array, tl.bfloat16)` wraps 16-bit
//! (8-bit for fp8) integer data, as Triton's `triton.reinterpret`, and the wrapper reaches this
//! module as the object with a `__trident_reinterpret__` attribute (`(base, dtype name)`).

use std::ffi::{c_char, c_int, c_void, CStr};

use pyo3::ffi;
use pyo3::prelude::*;
use trident_midend::ir::DType;
use trident_runtime::{npy, Buffer};

/// CPython's `Py_buffer` (Include/pybuffer.h, unchanged since 3.3).
#[repr(C)]
struct RawBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: isize,
    itemsize: isize,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut isize,
    strides: *mut isize,
    suboffsets: *mut isize,
    internal: *mut c_void,
}

extern "C" {
    fn PyObject_GetBuffer(object: *mut ffi::PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut RawBuffer);
}

/// `PyBUF_FORMAT | PyBUF_ND | PyBUF_STRIDES | PyBUF_C_CONTIGUOUS`: C-contiguous data with its
/// format and shape.
const C_CONTIGUOUS_WITH_FORMAT: c_int = 0x4 | 0x38;
/// `PyBUF_FORMAT | PyBUF_STRIDES`: any strided data (to tell "not contiguous" from "no buffer").
const STRIDED_WITH_FORMAT: c_int = 0x4 | 0x18;

/// A buffer taken from an object, released on drop (with the GIL held: the `'py` lifetime).
struct Exported<'py> {
    raw: Box<RawBuffer>,
    _object: Bound<'py, PyAny>,
}

impl<'py> Exported<'py> {
    /// The buffer of `object` with `flags`; `None` (the Python error cleared) when it has none.
    fn take(object: &Bound<'py, PyAny>, flags: c_int) -> Option<Exported<'py>> {
        let mut raw = Box::new(RawBuffer {
            buf: std::ptr::null_mut(),
            obj: std::ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: std::ptr::null_mut(),
            shape: std::ptr::null_mut(),
            strides: std::ptr::null_mut(),
            suboffsets: std::ptr::null_mut(),
            internal: std::ptr::null_mut(),
        });
        // SAFETY: a live object (the GIL is held through `'py`) and a `Py_buffer` to fill.
        if unsafe { PyObject_GetBuffer(object.as_ptr(), &mut *raw, flags) } != 0 {
            // Not a buffer (TypeError) or not one of this kind (BufferError): cleared.
            let _ = PyErr::take(object.py());
            return None;
        }
        Some(Exported { raw, _object: object.clone() })
    }

    fn bytes(&self) -> &[u8] {
        if self.raw.len == 0 || self.raw.buf.is_null() {
            return &[];
        }
        // SAFETY: an exported buffer holds `len` bytes at `buf` until it is released.
        unsafe { std::slice::from_raw_parts(self.raw.buf as *const u8, self.raw.len as usize) }
    }

    fn format(&self) -> String {
        if self.raw.format.is_null() {
            return "B".to_string();
        }
        // SAFETY: a NUL-terminated format string owned by the exporter.
        unsafe { CStr::from_ptr(self.raw.format) }.to_string_lossy().into_owned()
    }

    fn shape(&self) -> Vec<usize> {
        if self.raw.shape.is_null() {
            return vec![self.raw.len as usize / self.raw.itemsize.max(1) as usize];
        }
        // SAFETY: `ndim` extents at `shape`.
        let shape = unsafe { std::slice::from_raw_parts(self.raw.shape, self.raw.ndim as usize) };
        shape.iter().map(|&n| n as usize).collect()
    }
}

impl Drop for Exported<'_> {
    fn drop(&mut self) {
        // SAFETY: a buffer taken by `take`, released once, with the GIL held (`'py`).
        unsafe { PyBuffer_Release(&mut *self.raw) }
    }
}

/// An array argument: the memory it is read from and written back into, and its element types.
pub struct HostArray<'py> {
    /// The object the launch was given (a grid function sees it).
    pub object: Bound<'py, PyAny>,
    memory: Memory<'py>,
    /// The element type the kernel sees.
    pub dtype: DType,
    /// The element type of the array's memory (differs from `dtype` under `trident.reinterpret`).
    pub storage: DType,
}

/// Where a [`HostArray`]'s bytes lie.
enum Memory<'py> {
    /// A buffer exported through the buffer protocol.
    Exported(Exported<'py>),
    /// The memory of a contiguous CPU tensor, which `owner` keeps alive.
    Tensor { address: usize, len: usize, shape: Vec<usize>, _owner: Bound<'py, PyAny> },
}

impl<'py> HostArray<'py> {
    /// The `len` bytes at `address`, the memory of the contiguous CPU tensor `owner` (of `shape`
    /// elements of `storage`, read by the kernel as `dtype`).
    ///
    /// # Safety
    /// `address` must hold `len` bytes, readable and writable, for as long as `owner` lives.
    pub unsafe fn tensor_memory(
        owner: &Bound<'py, PyAny>,
        address: usize,
        len: usize,
        shape: Vec<usize>,
        dtype: DType,
        storage: DType,
    ) -> HostArray<'py> {
        let memory = Memory::Tensor { address, len, shape, _owner: owner.clone() };
        HostArray { object: owner.clone(), memory, dtype, storage }
    }

    fn bytes(&self) -> &[u8] {
        match &self.memory {
            Memory::Exported(exported) => exported.bytes(),
            Memory::Tensor { address, len, .. } if *len > 0 => {
                // SAFETY: the promise of `tensor_memory`; the owner lives as long as `self`.
                unsafe { std::slice::from_raw_parts(*address as *const u8, *len) }
            }
            Memory::Tensor { .. } => &[],
        }
    }
}

/// What [`view`] found.
pub enum View<'py> {
    /// No buffer.
    None,
    /// A buffer of no dimensions (a numpy scalar or 0-d array): a scalar, not a pointer.
    Scalar,
    Array(HostArray<'py>),
}

/// `object` as an array argument named `name`, with the element type `wanted` by a
/// `trident.reinterpret`.
pub fn view<'py>(name: &str, object: &Bound<'py, PyAny>, wanted: Option<DType>) -> PyResult<View<'py>> {
    let Some(exported) = Exported::take(object, C_CONTIGUOUS_WITH_FORMAT) else {
        if Exported::take(object, STRIDED_WITH_FORMAT).is_some() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{name}: the array is not C-contiguous (a strided view); trident copies buffers to the \
                 device as they lie in memory, so pass np.ascontiguousarray({name}) and copy the result back"
            )));
        }
        return Ok(View::None);
    };
    if exported.raw.ndim == 0 {
        return Ok(View::Scalar);
    }
    let format = exported.format();
    let itemsize = exported.raw.itemsize as usize;
    let storage = storage_dtype(&format, itemsize).ok_or_else(|| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "{name}: arrays of format '{format}' ({itemsize}-byte elements) are not supported: bool, \
             int8..int64, uint8..uint64 and float16/32/64 are (bf16 and fp8 through trident.reinterpret)"
        ))
    })?;
    let dtype = npy::kernel_dtype(storage, wanted)
        .map_err(|e| pyo3::exceptions::PyTypeError::new_err(format!("{name}: {e}")))?;
    Ok(View::Array(HostArray { object: object.clone(), memory: Memory::Exported(exported), dtype, storage }))
}

impl HostArray<'_> {
    /// The array's data, as the buffer `name` of a launch.
    pub fn read(&self, name: &str) -> Buffer {
        let shape = match &self.memory {
            Memory::Exported(exported) => exported.shape(),
            Memory::Tensor { shape, .. } => shape.clone(),
        };
        Buffer {
            name: name.to_string(),
            dtype: self.dtype,
            storage: self.storage,
            shape,
            bytes: self.bytes().to_vec(),
        }
    }

    /// Writes `bytes` (the buffer as the kernel left it) back into the array, unless it is
    /// read-only.
    pub fn write_back(&self, bytes: &[u8]) {
        let (address, len) = match &self.memory {
            Memory::Exported(exported) if exported.raw.readonly == 0 && !exported.raw.buf.is_null() => {
                (exported.raw.buf as usize, exported.raw.len as usize)
            }
            Memory::Tensor { address, len, .. } => (*address, *len),
            _ => return,
        };
        let length = bytes.len().min(len);
        if length == 0 {
            return;
        }
        // SAFETY: writable memory of `len` bytes (an exported writable buffer, or a tensor's
        // memory), held until the array is dropped; `bytes` is the kernel's copy, a separate
        // allocation.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), address as *mut u8, length) }
    }
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
