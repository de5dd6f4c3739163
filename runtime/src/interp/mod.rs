//! The reference interpreter: runs TTIR on the CPU, one program instance at a time, with exact
//! dtype semantics. It is the project's numerical reference, so it is honest about numerics
//! rather than fast.
//!
//! Execution model (Triton's block semantics, as in `TRITON_INTERPRET=1`): the kernel function
//! runs once per program of the grid, x fastest, then y, then z, sequentially; each program
//! evaluates whole tensors, there are no threads, and `gpu.barrier` is a no-op. Programs run to
//! completion one after another, so spin locks built from atomics terminate.
//!
//! Module map:
//! - `value.rs`: runtime values (shape + flat storage) and pointer/descriptor representations;
//! - `numerics.rs`: integer canonical forms, rounding to every float dtype, conversions, erf;
//! - `arith.rs`: elementwise arithmetic, comparisons, math and casts;
//! - `tensor.rs`: data movement (splat, broadcast, trans, join, ...), sort, topk, histogram;
//! - `memory.rs`: checked buffer accesses, loads, stores, atomics, tensor descriptors;
//! - `reduce.rs`: reductions, scans and dot;
//! - `eval.rs`: the op-by-op evaluator and structured control flow.
//!
//! Guarantees: no panics and no undefined behaviour on any input; every out-of-bounds or
//! misaligned access of an unmasked lane, integer division by zero, failed `tt.assert` and
//! unsupported op is a [`RuntimeError`] carrying the span of the op.

mod arith;
mod eval;
mod memory;
mod numerics;
mod reduce;

/// The value of a float element from its bits, every float dtype included (fp8 formats too).
pub use numerics::{float_from_bits, printf_float};
mod tensor;
mod value;

use std::rc::Rc;

use trident_midend::ir::{Elem, Module, Span, Type};

use crate::buffer::{ArgValue, Buffer, Grid};
use eval::Machine;
use memory::Memory;
use value::{Data, Ptr, Val};

/// A failure while running a kernel: what happened and, when known, the span of the op.
#[derive(Debug, Clone, PartialEq)]
pub struct RuntimeError {
    pub message: String,
    pub span: Option<Span>,
}

impl std::fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RuntimeError {}

fn error(message: String) -> RuntimeError {
    RuntimeError { message, span: None }
}

/// Converts launch arguments into values of the kernel's parameter types.
fn bind_args(
    module: &Module,
    kernel: &str,
    args: &[ArgValue],
    n_buffers: usize,
) -> Result<Vec<Rc<Val>>, RuntimeError> {
    let func =
        module.function(kernel).ok_or_else(|| error(format!("no function @{kernel} in the module")))?;
    let params = func.params();
    if params.len() != args.len() {
        return Err(error(format!("@{kernel} takes {} arguments, {} given", params.len(), args.len())));
    }
    let mut out = Vec::with_capacity(args.len());
    for (i, (&param, arg)) in params.iter().zip(args).enumerate() {
        let ty = func.body.ty(param);
        let name = func.arg_names.get(i).map_or("?", String::as_str);
        let val = match (arg, ty) {
            (ArgValue::Buffer(b), Type::Scalar(Elem::Ptr(_))) if *b < n_buffers => {
                Val { shape: Vec::new(), data: Data::Ptr(vec![Ptr { buf: *b as u32, off: 0 }]) }
            }
            (ArgValue::Int(x), Type::Scalar(Elem::Scalar(d))) if d.is_int() => {
                Val::scalar_int(numerics::canon(*d, *x))
            }
            (ArgValue::Int(x), Type::Scalar(Elem::Scalar(d))) => {
                Val { shape: Vec::new(), data: Data::Float(vec![numerics::int_to_float(*x as i128, *d)]) }
            }
            (ArgValue::Float(x), Type::Scalar(Elem::Scalar(d))) if d.is_float() => {
                Val { shape: Vec::new(), data: Data::Float(vec![numerics::round(*d, *x)]) }
            }
            _ => {
                return Err(error(format!("argument {i} (`{name}`: {ty}) cannot be bound to {arg:?}")));
            }
        };
        out.push(Rc::new(val));
    }
    Ok(out)
}

/// Runs `kernel` of `module` (TTIR after the TTIR pipeline) over every program of `grid`.
pub fn run(
    module: &Module,
    kernel: &str,
    grid: Grid,
    args: &[ArgValue],
    buffers: &mut [Buffer],
) -> Result<(), RuntimeError> {
    run_with_budget(module, kernel, grid, args, buffers, u64::MAX)
}

/// [`run`] that gives up with an error once the launch has done `budget` units of work: each op
/// costs one unit plus the elements of its results. For callers that run kernels they did not
/// write and must stay bounded in time (the fuzzer); a kernel's own loops are otherwise only
/// bounded by its trip counts.
pub fn run_with_budget(
    module: &Module,
    kernel: &str,
    grid: Grid,
    args: &[ArgValue],
    buffers: &mut [Buffer],
    budget: u64,
) -> Result<(), RuntimeError> {
    grid.within_limits().map_err(error)?;
    let values = bind_args(module, kernel, args, buffers.len())?;
    let Some(func) = module.function(kernel) else {
        return Err(error(format!("no function @{kernel} in the module")));
    };
    let mut machine = Machine::new(module, Memory { buffers }, grid.0);
    machine.budget = budget;
    let [gx, gy, gz] = grid.0;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                machine.pid = [x, y, z];
                machine.call(func, values.clone()).map_err(|mut e| {
                    e.message = format!("{} (program ({x}, {y}, {z}))", e.message);
                    e
                })?;
            }
        }
    }
    Ok(())
}
