//! The plan of a repeat launch: a loop's `kernel[grid](x, y, out, n, BLOCK=1024)` launched
//! again with arguments of the same kinds, without binding, classifying and keying them anew.
//!
//! A launch binds its arguments to the parameters ([`crate::bind`]), classifies each value
//! ([`crate::values`]), makes the specialization key ([`crate::key`]), looks it up, and binds
//! the loaded kernel's arguments ([`crate::launch`]). A loop launching one kernel from one call
//! site passes arguments of the same kinds every time: tensors of the same dtypes on the same GPU,
//! integers of the same classes, the same constexpr objects; so after a launch on nvptx with
//! CUDA tensors used in place, the kernel keeps a [`Plan`] for that call site (per thread,
//! beside its loaded kernels; for the last few sites it was launched from): per argument of the
//! call, in the call's order (the positionals, then vectorcall's keyword values), what it must
//! be for the launch to have the same key, and where it goes among the compiled kernel's
//! arguments.
//!
//! A call from the same site (the same keyword names: the interpreter's constant tuple of the
//! call, or the same name objects; as many positionals; the same backend) is checked against
//! its plans argument by argument, reading what a launch must read anyway:
//! - a tensor: exactly `torch.Tensor`, the plan's dtype object, on the plan's CUDA device, and its
//!   address (read at every launch, as every launch must) aligned to 16 bytes or not as before;
//! - an integer or a float: typed and classed as before ([`crate::values::Value::key`]);
//! - a constexpr or a launch option: the planned launch's object (an `int`, `float`, `bool`,
//!   `str` or `None`, which cannot change), or an `int` or `str` equal to it (a wrapper function
//!   computing `BLOCK` at every call makes a new int each time).
//!
//! Where all hold, the key is the plan's, so the launch runs the plan's loaded kernel; the grid
//! is the launch's own, as the whole way takes it (a tuple of ints read once per `kernel[grid]`,
//! a function called every time). Where any does not (another dtype, a host array, a new
//! constexpr value, an error reading a tensor), nothing has been launched and the launch goes
//! the whole way, which reports errors as ever and makes a new plan. `TRIDENT_CHECK` launches
//! never take a plan.

use std::rc::Rc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString, PyTuple};
use trident::cli::devices::Chosen;
use trident_frontend::DescriptorField;
use trident_runtime::{ArgValue, Grid};

use crate::bind;
use crate::grid;
use crate::kernel::Kernel;
use crate::key::{ArgKey, Backend, PerParam};
use crate::launch::Loaded;
use crate::torch;
use crate::values::{self, Value};

/// A planned repeat launch.
pub struct Plan {
    /// The call site: vectorcall's keyword names (null for none) and the count of positionals.
    keywords: Option<Py<PyTuple>>,
    positional: usize,
    backend: Backend,
    /// Per argument of the call, in the call's order.
    expected: PerParam<Expect>,
    /// Per parameter of the compiled kernel, in its order, where its argument comes from.
    sources: PerParam<Source>,
    /// How many tensors the launch passes (the buffers of `Source::Buffer`).
    buffers: usize,
    /// The CUDA device's ordinal.
    ordinal: i64,
    loaded: Rc<Loaded>,
}

/// What one argument of a call must be for the launch to have the plan's key.
enum Expect {
    /// A CUDA tensor for parameter `param`, buffer `buffer` of the launch, whose dtype is the
    /// object `dtype`, its address aligned to 16 bytes or not (`aligned16`).
    Tensor { param: usize, buffer: usize, dtype: Py<PyAny>, aligned16: bool },
    /// A Python scalar for parameter `param`, whose part of the key is `key`.
    Scalar { param: usize, key: ArgKey },
    /// The planned launch's object, or one equal to it ([`same_value`]): a constexpr, or a
    /// launch option.
    Same(Py<PyAny>),
}

/// Where an argument of the compiled kernel comes from.
#[derive(Clone, Copy)]
enum Source {
    /// Buffer `i`'s address.
    Buffer(usize),
    /// The scalar value of argument `i` of the call.
    Scalar(usize),
}

/// A call site of a launch: `kernel[grid](...)`'s grid object, and its arguments as vectorcall
/// passes them: the positionals, then one value per keyword name.
pub struct Site<'a, 'py> {
    pub grid: &'a Bound<'py, PyAny>,
    pub args: &'a [Bound<'py, PyAny>],
    pub positional: usize,
    pub keywords: Option<&'a Bound<'py, PyTuple>>,
}

/// The launch a plan makes of a call: the loaded kernel, and the compiled kernel's arguments
/// with the tensors' addresses.
pub struct Planned<'a> {
    pub loaded: &'a Loaded,
    pub ordinal: i64,
    pub args: PerParam<ArgValue>,
    pub addresses: PerParam<u64>,
}

impl Plan {
    /// Whether this is a plan of call site `site` on `backend`: the same keyword names (the
    /// very tuple, or the same name objects in a tuple made for the call, as `f(**kwargs)`
    /// makes), as many arguments and positionals.
    pub fn is_for(&self, site: &Site<'_, '_>, backend: Backend) -> bool {
        let same_keywords = match (&self.keywords, site.keywords) {
            (None, None) => true,
            (Some(planned), Some(keywords)) => {
                let planned = planned.bind(keywords.py());
                planned.is(keywords)
                    || (planned.len() == keywords.len()
                        && planned.iter().zip(keywords.iter()).all(|(a, b)| a.is(&b)))
            }
            _ => false,
        };
        same_keywords
            && site.positional == self.positional
            && site.args.len() == self.expected.len()
            && backend == self.backend
    }

    /// The launch by this plan of a call from its site ([`Plan::is_for`]), where the call's
    /// arguments are of the planned kinds (`exact_ints` as for the key); `None` otherwise.
    pub fn launch(&self, site: &Site<'_, '_>, exact_ints: bool) -> Option<Planned<'_>> {
        let mut addresses: PerParam<u64> = smallvec::smallvec![0; self.buffers];
        let mut scalars: PerParam<ArgValue> = smallvec::smallvec![ArgValue::Int(0); site.args.len()];
        // The scalars and constexprs first: they are checked without calling into torch, so a
        // plan of the same site for other kinds of arguments is passed over cheaply.
        let arguments = || self.expected.iter().zip(site.args).enumerate();
        for (index, (expect, arg)) in arguments() {
            match expect {
                Expect::Scalar { key, .. } => {
                    let value = values::scalar("", arg).ok()??;
                    if value.key(exact_ints) != *key {
                        return None;
                    }
                    scalars[index] = match value {
                        Value::Int { value, .. } => ArgValue::Int(value),
                        Value::Float(value) => ArgValue::Float(value),
                        _ => return None,
                    };
                }
                Expect::Same(object) if !same_value(object.bind(arg.py()), arg) => return None,
                Expect::Same(_) | Expect::Tensor { .. } => {}
            }
        }
        for (_, (expect, arg)) in arguments() {
            if let Expect::Tensor { buffer, dtype, aligned16, .. } = expect {
                let address = torch::planned_address(arg, dtype, self.ordinal).ok()??;
                if address.is_multiple_of(16) != *aligned16 {
                    return None;
                }
                addresses[*buffer] = address;
            }
        }
        let args = self
            .sources
            .iter()
            .map(|source| match *source {
                Source::Buffer(buffer) => ArgValue::Buffer(buffer),
                Source::Scalar(index) => scalars[index].clone(),
            })
            .collect();
        Some(Planned { loaded: &self.loaded, ordinal: self.ordinal, args, addresses })
    }

    /// The grid of a launch of `kernel` from `site` that this plan launches: read from the grid
    /// object, or its function called with the call's arguments (the runtime ones, by parameter
    /// name, in parameter order) and the loaded kernel's meta-parameters, as the whole way
    /// calls it.
    pub fn grid(&self, kernel: &Kernel, site: &Site<'_, '_>) -> PyResult<Grid> {
        let mut by_param: PerParam<Option<&Bound<'_, PyAny>>> =
            smallvec::smallvec![None; kernel.params.len()];
        for (expect, arg) in self.expected.iter().zip(site.args) {
            if let Expect::Tensor { param, .. } | Expect::Scalar { param, .. } = expect {
                by_param[*param] = Some(arg);
            }
        }
        let values: PerParam<(&str, &Bound<'_, PyAny>)> = kernel
            .params
            .iter()
            .zip(by_param)
            .filter_map(|(param, arg)| Some((param.name.as_str(), arg?)))
            .collect();
        grid::compute(site.grid.py(), &kernel.name, site.grid, &values, &self.loaded.meta)
    }

    /// The plan of a launch of `kernel` from `site` on `backend` that ran `loaded` with `values`
    /// (by parameter); `None` where a plan cannot stand for such a launch: not nvptx with CUDA
    /// tensors in place, a host array, a descriptor, a constexpr of another type, a keyword
    /// named at run time, `maxnreg` (warned about at every launch).
    pub fn of(
        kernel: &Kernel,
        site: &Site<'_, '_>,
        backend: Backend,
        values: &[Value<'_>],
        loaded: &Rc<Loaded>,
    ) -> Option<Plan> {
        let Chosen::Nvptx(gpu) = &loaded.target else { return None };
        // The buffer of each tensor parameter, numbered in parameter order as the launch numbers them.
        let mut buffers: PerParam<Option<usize>> = smallvec::smallvec![None; values.len()];
        let mut count = 0;
        for (buffer, value) in buffers.iter_mut().zip(values) {
            match value {
                Value::Torch(_) => {
                    *buffer = Some(count);
                    count += 1;
                }
                Value::Host(_) | Value::Descriptor(_) => return None,
                Value::Missing | Value::Const(_) | Value::Int { .. } | Value::Float(_) => {}
            }
        }
        if count == 0 {
            return None;
        }
        let mut expected = PerParam::with_capacity(site.args.len());
        // Per parameter, the call's argument that gives it.
        let mut given: PerParam<Option<usize>> = smallvec::smallvec![None; values.len()];
        for (index, arg) in site.args.iter().enumerate() {
            let param = match index.checked_sub(site.positional) {
                None => Some(index),
                Some(keyword) => {
                    let name = site.keywords?.get_item(keyword).ok()?;
                    match kernel.param_names.iter().position(|n| n.as_ptr() == name.as_ptr()) {
                        Some(param) => Some(param),
                        None => {
                            // A launch option, as the launch took it; a parameter named by a
                            // string made at run time, or maxnreg (warned about at every
                            // launch), leaves the launch unplanned.
                            let name = name.cast::<PyString>().ok()?.to_cow().ok()?;
                            let option = bind::OPTIONS.contains(&name.as_ref()) && name != "maxnreg";
                            if !option || kernel.params.iter().any(|p| p.name == name) {
                                return None;
                            }
                            None
                        }
                    }
                }
            };
            let Some(param) = param else {
                expected.push(Expect::Same(unchanging(arg)?));
                continue;
            };
            given[param] = Some(index);
            expected.push(match &values[param] {
                Value::Torch(tensor) if torch::is_exact_tensor(arg) => Expect::Tensor {
                    param,
                    buffer: buffers[param]?,
                    dtype: tensor.torch_dtype.clone().unbind(),
                    aligned16: tensor.data_ptr.is_multiple_of(16),
                },
                value @ (Value::Int { .. } | Value::Float(_)) => {
                    Expect::Scalar { param, key: value.key(kernel.exact_ints) }
                }
                Value::Const(_) => Expect::Same(unchanging(arg)?),
                _ => return None,
            });
        }
        let mut sources = PerParam::with_capacity(loaded.params.len());
        for &(param, field) in &loaded.params {
            if field != DescriptorField::Base {
                return None;
            }
            sources.push(match buffers[param] {
                Some(buffer) => Source::Buffer(buffer),
                None => Source::Scalar(given[param]?),
            });
        }
        Some(Plan {
            keywords: site.keywords.map(|keywords| keywords.clone().unbind()),
            positional: site.positional,
            backend,
            expected,
            sources,
            buffers: count,
            ordinal: i64::from(gpu.device.info().ordinal),
            loaded: loaded.clone(),
        })
    }
}

/// Whether `arg` is the constexpr or option `planned` was: the object itself, or an `int` or
/// `str` equal to it (of exactly those types: their equality is the key's). A float is the same
/// only as the same object (`0.0 == -0.0`, while the key tells them apart).
fn same_value(planned: &Bound<'_, PyAny>, arg: &Bound<'_, PyAny>) -> bool {
    if planned.is(arg) {
        return true;
    }
    let comparable = |object: &Bound<'_, PyAny>| {
        object.is_exact_instance_of::<PyInt>() || object.is_exact_instance_of::<PyString>()
    };
    comparable(planned) && planned.get_type().is(arg.get_type()) && planned.eq(arg).unwrap_or(false)
}

/// `object`, where it is of a type whose values cannot change (`int`, `float`, `bool`, `str`,
/// `None`): the same object is then the same value.
fn unchanging(object: &Bound<'_, PyAny>) -> Option<Py<PyAny>> {
    let fixed = object.is_none()
        || object.is_exact_instance_of::<PyInt>()
        || object.is_exact_instance_of::<PyFloat>()
        || object.is_exact_instance_of::<PyBool>()
        || object.is_exact_instance_of::<PyString>();
    fixed.then(|| object.clone().unbind())
}
