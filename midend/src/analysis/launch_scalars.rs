//! Scalars a launch knows before any program runs: values a kernel computes from its parameters
//! and constants alone, by integer arithmetic (`Z * H * N_CTX`, `q_ptr + offset`).
//!
//! Every program of a launch computes such a value alike. A backend can instead hand the
//! computation to the runtime, which evaluates it once per launch on the host
//! ([`LaunchScalar::evaluate`]) from the launch's arguments: the nvptx backend does so for the
//! fields of a tensor descriptor, whose tensor map the runtime then encodes on the host and passes
//! as a kernel parameter, instead of every program building it in global memory.
//!
//! The reading follows kernel parameters (integers and pointers), integer constants,
//! `arith.addi` / `subi` / `muli`, `arith.extsi` / `extui` / `trunci` and `tt.addptr`, each with
//! the IR's wrapping at its width. A value is held as its two's-complement bits at its width,
//! sign-extended to 64 (a pointer is its 64-bit address).

use super::{sign_extend, zero_extend};
use crate::ir::{Body, Function, Opcode, Value};

/// How many operations a launch scalar may have (descriptor fields are short; the bound keeps
/// shared operands nested deep from being read again and again).
const MAX_NODES: u32 = 64;

/// A value computed from a launch's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchScalar {
    /// Kernel parameter `index`: an integer's value, or a pointer's address.
    Param {
        index: usize,
        bits: u32,
    },
    Const(i64),
    /// `lhs op rhs`, wrapping at `bits`.
    Binary {
        op: BinaryOp,
        lhs: Box<LaunchScalar>,
        rhs: Box<LaunchScalar>,
        bits: u32,
    },
    /// `value` (held at `from` bits) at `bits`: zero-extended when `zero_extend`, else
    /// sign-extended or truncated.
    Resize {
        value: Box<LaunchScalar>,
        from: u32,
        bits: u32,
        zero_extend: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
}

/// `v` as a launch scalar of `function` (the kernel), or `None` when some program-dependent
/// value, load or unsupported operation feeds it.
pub fn launch_scalar(function: &Function, v: Value) -> Option<LaunchScalar> {
    let mut nodes = MAX_NODES;
    read(function, &function.body, v, &mut nodes)
}

fn read(function: &Function, body: &Body, v: Value, nodes: &mut u32) -> Option<LaunchScalar> {
    super::take_step(nodes)?;
    let ty = body.ty(v);
    if ty.is_tensor() || ty.is_desc() {
        return None;
    }
    let bits = if ty.is_ptr() { 64 } else { ty.dtype().bits() };
    let Some(def) = body.def_op(v) else {
        let index = function.params().iter().position(|&p| p == v)?;
        return Some(LaunchScalar::Param { index, bits });
    };
    let data = body.op(def);
    let binary = |op, nodes: &mut u32| -> Option<LaunchScalar> {
        let lhs = read(function, body, data.operands[0], nodes)?;
        let rhs = read(function, body, data.operands[1], nodes)?;
        Some(LaunchScalar::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs), bits })
    };
    match data.opcode {
        Opcode::Constant if !ty.is_ptr() => {
            Some(LaunchScalar::Const(sign_extend(data.attrs.int("value")?, bits)))
        }
        Opcode::AddI => binary(BinaryOp::Add, nodes),
        Opcode::SubI => binary(BinaryOp::Sub, nodes),
        Opcode::MulI => binary(BinaryOp::Mul, nodes),
        Opcode::ExtSI | Opcode::ExtUI | Opcode::TruncI => {
            let operand = data.operands[0];
            let from = body.ty(operand).dtype().bits();
            let value = read(function, body, operand, nodes)?;
            let zero_extend = data.opcode == Opcode::ExtUI;
            Some(LaunchScalar::Resize { value: Box::new(value), from, bits, zero_extend })
        }
        Opcode::AddPtr => {
            // The offset counts elements of the pointee, sign-extended as the backends add it.
            let pointer = read(function, body, data.operands[0], nodes)?;
            let offset = read(function, body, data.operands[1], nodes)?;
            let size = i64::try_from(ty.dtype().size_bytes()).ok()?;
            let bytes = LaunchScalar::Binary {
                op: BinaryOp::Mul,
                lhs: Box::new(offset),
                rhs: Box::new(LaunchScalar::Const(size)),
                bits: 64,
            };
            Some(LaunchScalar::Binary {
                op: BinaryOp::Add,
                lhs: Box::new(pointer),
                rhs: Box::new(bytes),
                bits: 64,
            })
        }
        _ => None,
    }
}

impl LaunchScalar {
    /// The value for a launch whose parameter `i` is `param(i)` (an integer's value or a
    /// pointer's address, any bits above the parameter's width ignored); `None` when a
    /// parameter has no such value.
    pub fn evaluate(&self, param: &dyn Fn(usize) -> Option<i64>) -> Option<i64> {
        Some(match self {
            LaunchScalar::Param { index, bits } => sign_extend(param(*index)?, *bits),
            LaunchScalar::Const(value) => *value,
            LaunchScalar::Binary { op, lhs, rhs, bits } => {
                let (lhs, rhs) = (lhs.evaluate(param)?, rhs.evaluate(param)?);
                let value = match op {
                    BinaryOp::Add => lhs.wrapping_add(rhs),
                    BinaryOp::Sub => lhs.wrapping_sub(rhs),
                    BinaryOp::Mul => lhs.wrapping_mul(rhs),
                };
                sign_extend(value, *bits)
            }
            LaunchScalar::Resize { value, from, bits, zero_extend: unsigned } => {
                let value = value.evaluate(param)?;
                let value = if *unsigned { zero_extend(value, *from) as i64 } else { value };
                sign_extend(value, *bits)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Builder, DType, FuncKind, Type};

    /// A kernel `(p: !tt.ptr<f16>, a: i32, b: i32, c: i64)` whose body `build` writes from its
    /// parameters; the values `build` returns.
    fn kernel_with(build: impl FnOnce(&mut Builder, [Value; 4]) -> Vec<Value>) -> (Function, Vec<Value>) {
        let params = [
            Type::ptr(DType::F16),
            Type::scalar(DType::I32),
            Type::scalar(DType::I32),
            Type::scalar(DType::I64),
        ];
        let mut f = Function::new("k", FuncKind::Kernel, &params, &[]);
        let [p, a, b, c] = f.params()[..] else { unreachable!("four parameters") };
        let entry = f.entry;
        let values = build(&mut Builder::at_end(&mut f.body, entry), [p, a, b, c]);
        (f, values)
    }

    fn args(index: usize) -> Option<i64> {
        [0x7000_0000_0000, 3, 1 << 30, -5].get(index).copied()
    }

    #[test]
    fn products_of_parameters_wrap_at_their_width() {
        let (f, v) = kernel_with(|bld, [_, a, b, _]| {
            let ab = bld.same_type(Opcode::MulI, vec![a, b]);
            let four = bld.const_int(DType::I32, 4);
            vec![bld.same_type(Opcode::MulI, vec![ab, four]), ab]
        });
        let scalar = launch_scalar(&f, v[0]).expect("a launch scalar");
        // 3 * 2^30 * 4 = 3 * 2^32 wraps to 0 in 32 bits.
        assert_eq!(scalar.evaluate(&args), Some(0));
        assert_eq!(launch_scalar(&f, v[1]).unwrap().evaluate(&args), Some(sign_extend(3 << 30, 32)));
    }

    #[test]
    fn pointer_offsets_count_elements_and_extensions_follow_their_kind() {
        let (f, v) = kernel_with(|bld, [p, a, _, c]| {
            let wide = bld.cast(Opcode::ExtSI, a, Type::scalar(DType::I64));
            let sum = bld.same_type(Opcode::AddI, vec![wide, c]);
            let moved = bld.value(Opcode::AddPtr, vec![p, sum], Type::ptr(DType::F16), Default::default());
            let narrow = bld.cast(Opcode::TruncI, c, Type::scalar(DType::I32));
            vec![moved, bld.cast(Opcode::ExtUI, narrow, Type::scalar(DType::I64))]
        });
        // p + (3 - 5) f16 elements: four bytes back.
        assert_eq!(launch_scalar(&f, v[0]).unwrap().evaluate(&args), Some(0x7000_0000_0000 - 4));
        // -5 truncated to 32 bits, then zero-extended: 2^32 - 5.
        assert_eq!(launch_scalar(&f, v[1]).unwrap().evaluate(&args), Some((1i64 << 32) - 5));
    }

    #[test]
    fn program_dependent_values_are_not_launch_scalars() {
        let (f, v) = kernel_with(|bld, [_, a, _, _]| {
            let pid = bld.value(Opcode::GetProgramId, vec![], Type::scalar(DType::I32), Default::default());
            vec![bld.same_type(Opcode::MulI, vec![a, pid]), a]
        });
        assert_eq!(launch_scalar(&f, v[0]), None);
        assert!(launch_scalar(&f, v[1]).is_some());
    }

    #[test]
    fn the_reading_is_bounded() {
        // x + x nested deep: a DAG of a few ops, a tree of 2^40 leaves.
        let (f, v) = kernel_with(|bld, [_, a, _, _]| {
            let mut x = a;
            for _ in 0..40 {
                x = bld.same_type(Opcode::AddI, vec![x, x]);
            }
            vec![x]
        });
        assert_eq!(launch_scalar(&f, v[0]), None);
    }
}
