//! torch tensors as kernel arguments.
//!
//! - A CPU tensor is an array like any other: its memory (from `data_ptr()`, the span of its
//!   elements: strided tensors keep their layout, and the kernel addresses them through the
//!   strides it is given, as on a GPU) is copied into the launch and written back into it after
//!   the launch ([`crate::buffers`]).
//! - A CUDA tensor on nvptx is used in place: the kernel gets `tensor.data_ptr()`, and the launch
//!   goes on torch's current stream of the tensor's device (`torch.cuda.current_stream()`), with
//!   no copy and no synchronization, as Triton launches. Every pointer argument of such a launch
//!   must be a CUDA tensor of the device trident runs on.
//! - A CUDA tensor on spirv or interp is copied through the host: its span read with `.cpu()`,
//!   written back with `.copy_(...)` (which order themselves on torch's stream).
//!
//! torch is never imported here: a tensor can only exist once the program has imported torch,
//! so its type is looked up in `sys.modules` (once found, kept). Pointers are specialized as
//! Triton does: a CUDA tensor's address is 16-byte aligned or not (a slice may not be); a copied
//! tensor lands in a fresh allocation, aligned.

use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyTuple, PyType};
use trident_midend::ir::DType;
use trident_runtime::npy;

use crate::buffers::HostArray;
use crate::key::{ArgKey, Place};

/// `torch.Tensor`, once the program has imported torch.
static TENSOR_TYPE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
/// `sys.modules`, where torch is looked for.
static MODULES: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
/// torch's dtypes (by object address) as trident's, the common ones first (a launch finds its
/// tensors' dtypes by a few pointer comparisons).
static DTYPES: PyOnceLock<Vec<(usize, DType)>> = PyOnceLock::new();
/// `torch._C._cuda_getCurrentRawStream`, and its argument tuples `(ordinal,)` for every CUDA
/// device (made once: a launch passes one as it is).
static CURRENT_STREAM: PyOnceLock<(Py<PyAny>, Vec<Py<PyTuple>>)> = PyOnceLock::new();
/// `torch.cuda.device_count()`, asked once a CUDA tensor is seen (the devices a process sees
/// are fixed when CUDA starts).
static CUDA_DEVICES: PyOnceLock<usize> = PyOnceLock::new();

/// A CUDA tensor argument (CPU tensors become [`HostArray`]s).
pub struct Tensor<'py> {
    /// The object the launch was given (the tensor, or its `trident.reinterpret` wrapper).
    pub object: Bound<'py, PyAny>,
    /// The tensor.
    pub tensor: Bound<'py, PyAny>,
    /// The element type the kernel sees.
    pub dtype: DType,
    /// The element type of the tensor's memory.
    pub storage: DType,
    /// torch's dtype object of the tensor (a repeat launch's plan compares it by identity).
    pub torch_dtype: Bound<'py, PyAny>,
    /// The CUDA device's ordinal.
    pub device: i64,
    /// The address of the tensor's first element.
    pub data_ptr: u64,
}

/// What [`tensor`] found.
pub enum Found<'py> {
    /// A CUDA tensor.
    Cuda(Tensor<'py>),
    /// A CPU tensor, as an array copied through its memory.
    Host(HostArray<'py>),
}

impl<'py> Tensor<'py> {
    pub fn key(&self) -> ArgKey {
        ArgKey::Pointer {
            dtype: self.dtype,
            aligned16: self.data_ptr.is_multiple_of(16),
            place: Place::Cuda(self.device),
        }
    }

    /// The tensor's memory copied to the host (for spirv and interp, and for the first launch's
    /// autotuning): the span of elements from its first to its last, as a 1-D CPU tensor, and
    /// the array over it. A strided tensor's copy keeps its layout (the kernel addresses it
    /// through the strides it is given), gaps included.
    pub fn to_host(&self) -> PyResult<(Bound<'py, PyAny>, HostArray<'py>)> {
        let host = self.span()?.call_method0("detach")?.call_method0("cpu")?;
        let array = host_memory(&host, self.dtype, self.storage)?;
        Ok((host, array))
    }

    /// Copies `host` (from [`Tensor::to_host`], as the kernel left it) back into the tensor's
    /// memory.
    pub fn copy_back(&self, host: &Bound<'py, PyAny>) -> PyResult<()> {
        self.span()?.call_method1("copy_", (host,))?;
        Ok(())
    }

    /// The tensor's span as a 1-D view of its storage.
    fn span(&self) -> PyResult<Bound<'py, PyAny>> {
        let elements = span_elements(&self.tensor)?;
        self.tensor.call_method1("as_strided", ((elements,), (1,)))
    }
}

/// The number of elements from a tensor's first to its last, `1 + sum((size - 1) * stride)`
/// (the element count of a contiguous tensor; 0 for an empty one).
fn span_elements(tensor: &Bound<'_, PyAny>) -> PyResult<usize> {
    let shape: Vec<usize> = tensor.getattr("shape")?.extract()?;
    if shape.contains(&0) {
        return Ok(0);
    }
    let strides: Vec<usize> = tensor.call_method0("stride")?.extract()?;
    Ok(1 + shape.iter().zip(&strides).map(|(size, stride)| (size - 1) * stride).sum::<usize>())
}

/// `value` as a tensor argument named `name`, with the element type `wanted` by a
/// `trident.reinterpret`; `None` when it is no torch tensor.
pub fn tensor<'py>(
    name: &str,
    value: &Bound<'py, PyAny>,
    wanted: Option<DType>,
) -> PyResult<Option<Found<'py>>> {
    let py = value.py();
    let Some(tensor_type) = tensor_type(py)? else { return Ok(None) };
    if !value.is_instance(tensor_type.bind(py))? {
        return Ok(None);
    }
    // Interned names: a repeat launch reads these of every tensor argument, and an interned
    // name's hash is computed once (a fresh string would be hashed at every lookup).
    let torch_dtype = value.getattr(intern!(py, "dtype"))?;
    let address = torch_dtype.as_ptr() as usize;
    let found = dtypes(py)?.iter().find(|(object, _)| *object == address).map(|(_, dtype)| *dtype);
    let storage = found.ok_or_else(|| {
        PyTypeError::new_err(format!(
            "{name}: tensors of {torch_dtype} are not supported: bool, int8..int64, uint8, float16, \
             bfloat16, float32, float64 and float8_e4m3fn / float8_e5m2 are"
        ))
    })?;
    let dtype =
        npy::kernel_dtype(storage, wanted).map_err(|e| PyTypeError::new_err(format!("{name}: {e}")))?;
    if !is_cuda(value)? {
        let place = value.getattr("device")?.getattr("type")?;
        if place.to_string() != "cpu" {
            return Err(PyTypeError::new_err(format!(
                "{name}: a tensor on {place}: trident takes CPU and CUDA tensors"
            )));
        }
        let array = host_memory(value, dtype, storage)?;
        return Ok(Some(Found::Host(array)));
    }
    let device = cuda_device(value)?;
    let data_ptr = data_ptr(value)?;
    Ok(Some(Found::Cuda(Tensor {
        object: value.clone(),
        tensor: value.clone(),
        dtype,
        storage,
        torch_dtype,
        device,
        data_ptr,
    })))
}

/// The address of the CUDA tensor `value` of exactly `torch.Tensor` on device `ordinal`, where
/// its dtype is the object `dtype`; `None` where it is not such a tensor (a repeat launch's
/// [`crate::plan`] reads no more of a tensor than this).
pub fn planned_address(value: &Bound<'_, PyAny>, dtype: &Py<PyAny>, ordinal: i64) -> PyResult<Option<u64>> {
    let fits = is_exact_tensor(value)
        && value.getattr(intern!(value.py(), "dtype"))?.is(dtype)
        && is_cuda(value)?
        && cuda_device(value)? == ordinal;
    Ok(if fits { Some(data_ptr(value)?) } else { None })
}

/// Whether the tensor `value` is on a CUDA device (`is_cuda` is a bool: compared with True, not
/// converted).
fn is_cuda(value: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = value.py();
    Ok(value.getattr(intern!(py, "is_cuda"))?.is(PyBool::new(py, true)))
}

/// The ordinal of the CUDA device of the CUDA tensor `value`. With one CUDA device every CUDA
/// tensor is on it: the method call is left out (it is a tenth of a repeat launch's time with
/// three tensors).
fn cuda_device(value: &Bound<'_, PyAny>) -> PyResult<i64> {
    let py = value.py();
    match cuda_device_count(py)? {
        1 => Ok(0),
        _ => value.call_method0(intern!(py, "get_device"))?.extract(),
    }
}

/// The address of the tensor `value`'s first element.
fn data_ptr(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    address(&value.call_method0(intern!(value.py(), "data_ptr"))?)
}

/// The address that torch gave as the int `value` (through `PyLong_FromVoidPtr`), read back by
/// its inverse. An address above 2**30 is an int of several digits: where a C long holds an
/// address (Linux), `PyLong_AsVoidPtr` reads them in a loop, while the conversion to an
/// unsigned long long goes through a byte array (about 60 ns a launch with three tensors and
/// the stream, in a profile on the H100 host, Python 3.12).
fn address(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    // SAFETY: `value` is a live object; the function reads it, and sets an error where it is
    // no int or out of range.
    let pointer = unsafe { pyo3::ffi::PyLong_AsVoidPtr(value.as_ptr()) };
    if pointer.is_null() {
        if let Some(error) = PyErr::take(value.py()) {
            return Err(error);
        }
    }
    Ok(pointer as usize as u64)
}

/// The memory of the CPU tensor `host` (its span: [`span_elements`]), as an array of `dtype`
/// over `storage`.
fn host_memory<'py>(host: &Bound<'py, PyAny>, dtype: DType, storage: DType) -> PyResult<HostArray<'py>> {
    let address = data_ptr(host)? as usize;
    let elements = span_elements(host)?;
    let len = elements * storage.size_bytes();
    // SAFETY: a CPU tensor's storage holds its span of elements of its dtype from data_ptr() on,
    // for as long as it lives (the array keeps it).
    Ok(unsafe { HostArray::tensor_memory(host, address, len, vec![elements], dtype, storage) })
}

/// torch's current raw stream (a `cudaStream_t` as an integer) of device `ordinal`.
pub fn current_stream(py: Python<'_>, ordinal: i64) -> PyResult<u64> {
    let (function, per_device) = CURRENT_STREAM.get_or_try_init(py, || -> PyResult<_> {
        let function = py.import("torch")?.getattr("_C")?.getattr("_cuda_getCurrentRawStream")?.unbind();
        let per_device = (0..cuda_device_count(py)? as i64)
            .map(|ordinal| PyTuple::new(py, [ordinal]).map(Bound::unbind))
            .collect::<PyResult<Vec<_>>>()?;
        Ok((function, per_device))
    })?;
    let function = function.bind(py);
    match usize::try_from(ordinal).ok().and_then(|index| per_device.get(index)) {
        Some(args) => address(&function.call1(args.bind(py))?),
        None => address(&function.call1((ordinal,))?),
    }
}

/// Whether `value` is of exactly `torch.Tensor` (not a subclass), once a tensor has been seen:
/// one pointer comparison, for the common argument.
pub fn is_exact_tensor(value: &Bound<'_, PyAny>) -> bool {
    TENSOR_TYPE.get(value.py()).is_some_and(|tensor| value.get_type_ptr() == tensor.as_ptr().cast())
}

/// How many CUDA devices torch sees.
fn cuda_device_count(py: Python<'_>) -> PyResult<usize> {
    CUDA_DEVICES
        .get_or_try_init(py, || py.import("torch")?.getattr("cuda")?.call_method0("device_count")?.extract())
        .copied()
}

/// `torch.Tensor`, when torch has been imported.
fn tensor_type(py: Python<'_>) -> PyResult<Option<&Py<PyType>>> {
    if let Some(found) = TENSOR_TYPE.get(py) {
        return Ok(Some(found));
    }
    let modules = MODULES.get_or_try_init(py, || -> PyResult<Py<PyDict>> {
        Ok(py.import("sys")?.getattr("modules")?.cast_into::<PyDict>()?.unbind())
    })?;
    let Some(torch) = modules.bind(py).get_item("torch")? else { return Ok(None) };
    let Some(tensor) = torch.getattr_opt("Tensor")? else { return Ok(None) };
    let tensor = tensor.cast_into::<PyType>()?.unbind();
    Ok(Some(TENSOR_TYPE.get_or_init(py, || tensor)))
}

/// torch's dtypes that kernels take, by the address of their objects.
fn dtypes(py: Python<'_>) -> PyResult<&[(usize, DType)]> {
    let table = DTYPES.get_or_try_init(py, || -> PyResult<Vec<(usize, DType)>> {
        let torch = py.import("torch")?;
        let names = [
            ("float32", DType::F32),
            ("float16", DType::F16),
            ("bfloat16", DType::BF16),
            ("int32", DType::I32),
            ("int64", DType::I64),
            ("bool", DType::I1),
            ("int8", DType::I8),
            ("int16", DType::I16),
            ("uint8", DType::U8),
            ("uint16", DType::U16),
            ("uint32", DType::U32),
            ("uint64", DType::U64),
            ("float64", DType::F64),
            ("float8_e4m3fn", DType::F8E4M3),
            ("float8_e5m2", DType::F8E5M2),
        ];
        let mut table = Vec::with_capacity(names.len());
        for (name, dtype) in names {
            // Older torch lacks the unsigned and fp8 types.
            if let Some(object) = torch.getattr_opt(name)? {
                table.push((object.as_ptr() as usize, dtype));
            }
        }
        Ok(table)
    })?;
    Ok(table)
}
