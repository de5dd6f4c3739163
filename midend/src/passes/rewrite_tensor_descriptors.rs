//! Rewrites tensor-descriptor loads and stores into pointer arithmetic and masks, except those
//! that TMA serves.
//!
//! Triton does this on GPUs without TMA (`rewrite_tensor_descriptor_to_pointer`, cc < 90); trident
//! does it on every target without TMA, and on Hopper for the accesses that TMA cannot serve. A
//! `tt.descriptor_load(desc, offsets...)` of a descriptor made by `tt.make_tensor_descriptor(base,
//! shape..., strides...)` becomes a `tt.load` of `base + Σ_d (offset_d + arange(block_d)) *
//! stride_d` (in i64) masked by `0 <= index_d < shape_d`, reading the padding value (zero, or NaN
//! for `padding = "nan"`) outside; a `tt.descriptor_store` becomes the same masked `tt.store`.
//! The descriptor ops left without uses are removed by DCE.
//!
//! # What stays a descriptor (targets with TMA)
//!
//! On sm_90a an access stays a `tt.descriptor_load` / `tt.descriptor_store`, which the backend
//! lowers to `cp.async.bulk.tensor` copies through a tensor map built on the device, when what
//! the tensor map encoding requires (TRITON-NOTES.md §6) is proven at compile time:
//!
//! 1. elements of 2 or 4 bytes (the nvptx backend stages 1-byte elements in 16-bit registers
//!    and has no byte-wide tile path yet) and zero padding (the tensor map fills with zeros; its
//!    NaN fill needs a float element type, which trident's maps do not declare);
//! 2. every block dimension at most 256, the innermost a multiple of 16 bytes;
//! 3. the base pointer 16-byte aligned and every stride but the last a multiple of 16 bytes
//!    (axis info: the kernel's divisibility specialization, constants, hints), the last stride
//!    the constant 1.
//!
//! Triton checks the same at run time and fails the launch; trident keeps such descriptors on the
//! pointer path instead, which is correct for any alignment.
//!
//! A load inside an `scf.for` that feeds a `tt.dot` (with `num_stages >= 2`) stays a descriptor
//! only when every dot it feeds will be a warpgroup MMA (accelerate-matmul's choice, asked
//! ahead): pipeline-dot-loads then streams it through a swizzled ring filled by TMA. Other dots
//! (mma.sync, FMA) read padded rings, which only `cp.async` fills, so such loads take the
//! pointer path; a synchronous TMA copy per iteration would lose the overlap.
//!
//! Expects: TTIR (no layouts), helpers inlined, descriptors made in the same function. Descriptor
//! accesses whose descriptor does not come from a `tt.make_tensor_descriptor` are left alone (the
//! backend reports them). Guarantees: the same memory accesses, expressed with pointers or with
//! descriptors whose tensor maps are valid.

use std::collections::HashMap;

use crate::analysis::axis_info::{self, AxisInfoMap};
use crate::ir::{Attr, Attrs, Body, Builder, DType, Elem, Module, Op, Opcode, Type, Value};
use crate::passes::accelerate_matmul::takes_warpgroup_mma;
use crate::passes::pipeline_dot_loads::pipelined_loop_of;
use crate::passes::uses::users_in;
use crate::target::Target;

/// The largest box dimension of a tensor map.
const MAX_BOX_DIM: u32 = 256;

/// Rewrites every descriptor access of every function that `target` cannot serve with TMA.
pub fn run(module: &mut Module, target: &Target) {
    for function in &mut module.functions {
        let ops = function.body.walk(function.entry);
        let is_access =
            |op: &Op| matches!(function.body.opcode(*op), Opcode::DescriptorLoad | Opcode::DescriptorStore);
        let mut accesses: Vec<Op> = ops.iter().copied().filter(is_access).collect();
        if accesses.is_empty() {
            // Most kernels: no analysis on the compile path.
            continue;
        }
        if target.has_tma() {
            let axis = axis_info::analyze(function);
            let users = users_in(&function.body, &ops);
            accesses.retain(|&op| !stays_on_tma(&function.body, &axis, &users, op, target));
        }
        let body = &mut function.body;
        let mut replaced = HashMap::new();
        for op in accesses {
            if let Some((old, new)) = rewrite(body, op) {
                replaced.insert(old, new);
            }
        }
        body.replace_uses(function.entry, &replaced);
    }
}

/// Whether the descriptor access `op` keeps its descriptor for TMA (the module documentation
/// lists the conditions).
fn stays_on_tma(body: &Body, axis: &AxisInfoMap, users: &Users, op: Op, target: &Target) -> bool {
    let desc = body.op(op).operands[0];
    let Some(make) = body.def_op(desc).filter(|&m| body.opcode(m) == Opcode::MakeTensorDescriptor) else {
        return false;
    };
    let Type::Desc { dtype, block } = body.ty(desc) else { return false };
    let elem_bytes = dtype.bits().div_ceil(8) as u64;
    let rank = block.len();
    let made = body.op(make);
    let divisibility = |v: Value| axis.get(v).map_or(1, |info| info.divisibility[0]);
    let inner_bytes = block[rank - 1] as u64 * elem_bytes;
    let encodable = matches!(elem_bytes, 2 | 4)
        && made.attrs.str("padding") != Some("nan")
        && block.iter().all(|&d| d <= MAX_BOX_DIM)
        && inner_bytes.is_multiple_of(16)
        && divisibility(made.operands[0]) >= 16
        && made.operands[1 + rank..2 * rank].iter().all(|&s| divisibility(s) * elem_bytes >= 16)
        && axis.get(made.operands[2 * rank]).and_then(|info| info.constant) == Some(1);
    encodable && !(body.opcode(op) == Opcode::DescriptorLoad && feeds_pipelined_dot(body, users, op, target))
}

/// The users of every value of a function, with the operand index.
pub(crate) type Users = HashMap<Value, Vec<(Op, usize)>>;

/// Whether the load `op` sits directly in the body of a pipelined `scf.for` and its value reaches a `tt.dot` that will not be
/// a warpgroup MMA reading it from a TMA ring, so that pipeline-dot-loads streams it through a
/// `cp.async` ring instead (in registers, or through a transpose for an 8-bit A operand).
fn feeds_pipelined_dot(body: &Body, users: &Users, op: Op, target: &Target) -> bool {
    if pipelined_loop_of(body, op, target).is_none() {
        return false;
    }
    let readers = dot_readers(body, users, body.op(op).results[0], target);
    readers.feeds_dot && !readers.tma_ring
}

/// What reads a loaded tile, through `tt.trans` and `ttg.convert_layout` ([`dot_readers`]).
pub(crate) struct DotReaders {
    /// Some `tt.dot` reads it.
    pub feeds_dot: bool,
    /// Only `tt.dot`s read it, each a warpgroup MMA that can take it from a TMA ring (as A or B;
    /// an 8-bit operand K-major).
    pub tma_ring: bool,
}

/// The readers of tile `value`, following `tt.trans` and `ttg.convert_layout` to the dots.
pub(crate) fn dot_readers(body: &Body, users: &Users, value: Value, target: &Target) -> DotReaders {
    let fp8 = body.ty(value).dtype().is_fp8();
    // (value, reached through a transpose)
    let mut frontier = vec![(value, false)];
    let mut readers = DotReaders { feeds_dot: false, tma_ring: true };
    while let Some((value, transposed)) = frontier.pop() {
        for &(user, slot) in users.get(&value).into_iter().flatten() {
            match body.opcode(user) {
                Opcode::Dot => {
                    readers.feeds_dot = true;
                    // wgmma reads 8-bit operands K-major only: A as stored, B transposed.
                    let k_major = !fp8 || (slot == 0) != transposed;
                    readers.tma_ring &= slot < 2 && k_major && takes_warpgroup_mma(body, user, target);
                }
                Opcode::Trans => frontier.extend(body.op(user).results.iter().map(|&r| (r, !transposed))),
                Opcode::ConvertLayout => {
                    frontier.extend(body.op(user).results.iter().map(|&r| (r, transposed)))
                }
                _ => readers.tma_ring = false,
            }
        }
    }
    readers
}

/// Rewrites one access; returns (old result, new result) for loads.
fn rewrite(body: &mut Body, op: Op) -> Option<(Value, Value)> {
    let data = body.op(op).clone();
    let desc = data.operands[0];
    let make = body.def_op(desc).filter(|&m| body.opcode(m) == Opcode::MakeTensorDescriptor)?;
    let Type::Desc { dtype, block } = body.ty(desc).clone() else { return None };
    let rank = block.len();
    let made = body.op(make).clone();
    let base = made.operands[0];
    let shapes = made.operands[1..1 + rank].to_vec();
    let strides = made.operands[1 + rank..1 + 2 * rank].to_vec();
    let nan_padding = made.attrs.str("padding") == Some("nan");
    let is_load = data.opcode == Opcode::DescriptorLoad;
    let offsets = if is_load { data.operands[1..].to_vec() } else { data.operands[2..].to_vec() };
    let parent = data.parent?;
    let index = body.blocks[parent].ops.iter().position(|&o| o == op)?;
    let span = body.span(op);

    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let i32_ty = |shape: &[u32]| Type::tensor(Elem::Scalar(DType::I32), shape);
    let mut total: Option<Value> = None;
    let mut mask: Option<Value> = None;
    for d in 0..rank {
        let n = block[d];
        // idx = offset_d + arange(n), placed on axis d of a rank-`rank` tensor.
        let range = b.value(
            Opcode::MakeRange,
            vec![],
            i32_ty(&[n]),
            Attrs::new().with("start", Attr::Int(0)).with("end", Attr::Int(n as i64)),
        );
        let off = b.splat(offsets[d], &[n]);
        let mut idx = b.value(Opcode::AddI, vec![off, range], i32_ty(&[n]), Attrs::new());
        let mut shape = vec![n];
        for axis in 0..rank {
            if axis != d {
                shape.insert(axis, 1);
                idx = b.value(
                    Opcode::ExpandDims,
                    vec![idx],
                    i32_ty(&shape),
                    Attrs::new().with("axis", Attr::Int(axis as i64)),
                );
            }
        }
        let wide =
            b.value(Opcode::ExtSI, vec![idx], Type::tensor(Elem::Scalar(DType::I64), &shape), Attrs::new());
        let stride = b.splat(strides[d], &shape);
        let term = b.value(
            Opcode::MulI,
            vec![wide, stride],
            Type::tensor(Elem::Scalar(DType::I64), &shape),
            Attrs::new(),
        );
        let term = broadcast(&mut b, term, &block);
        total = Some(match total {
            None => term,
            Some(t) => b.value(
                Opcode::AddI,
                vec![t, term],
                Type::tensor(Elem::Scalar(DType::I64), &block),
                Attrs::new(),
            ),
        });
        let zero = b.constant(i32_ty(&shape), Attr::Int(0));
        let limit = b.splat(shapes[d], &shape);
        let lo = b.cmpi("sge", idx, zero);
        let hi = b.cmpi("slt", idx, limit);
        let ok =
            b.value(Opcode::AndI, vec![lo, hi], Type::tensor(Elem::Scalar(DType::I1), &shape), Attrs::new());
        let ok = broadcast(&mut b, ok, &block);
        mask = Some(match mask {
            None => ok,
            Some(m) => b.value(
                Opcode::AndI,
                vec![m, ok],
                Type::tensor(Elem::Scalar(DType::I1), &block),
                Attrs::new(),
            ),
        });
    }
    let (total, mask) = (total?, mask?);
    let ptr_ty = Type::tensor(Elem::Ptr(dtype), &block);
    let base = b.splat(base, &block);
    let ptrs = b.value(Opcode::AddPtr, vec![base, total], ptr_ty, Attrs::new());
    let result = if is_load {
        let pad = if nan_padding && dtype.is_float() {
            Attr::Float(f64::NAN)
        } else if dtype.is_float() {
            Attr::Float(0.0)
        } else {
            Attr::Int(0)
        };
        let other = b.constant(Type::tensor(Elem::Scalar(dtype), &block), pad);
        let loaded = b.value(
            Opcode::Load,
            vec![ptrs, mask, other],
            Type::tensor(Elem::Scalar(dtype), &block),
            Attrs::new(),
        );
        Some((data.results[0], loaded))
    } else {
        b.op(Opcode::Store, vec![ptrs, data.operands[1], mask], &[], Attrs::new());
        None
    };
    body.detach_op(op);
    result
}

fn broadcast(b: &mut Builder, v: Value, shape: &[u32]) -> Value {
    if b.ty(v).shape() == shape {
        return v;
    }
    let ty = b.ty(v).with_shape(shape);
    b.value(Opcode::Broadcast, vec![v], ty, Attrs::new())
}
