//! Rewrites tensor-descriptor loads and stores into pointer arithmetic and masks.
//!
//! Triton does this on GPUs without TMA (`rewrite_tensor_descriptor_to_pointer`, cc < 90); trident
//! does it on every GPU target until its backends lower descriptors to TMA copies. A
//! `tt.descriptor_load(desc, offsets...)` of a descriptor made by `tt.make_tensor_descriptor(base,
//! shape..., strides...)` becomes a `tt.load` of `base + Σ_d (offset_d + arange(block_d)) *
//! stride_d` (in i64) masked by `0 <= index_d < shape_d`, reading the padding value (zero, or NaN
//! for `padding = "nan"`) outside; a `tt.descriptor_store` becomes the same masked `tt.store`.
//! The descriptor ops left without uses are removed by DCE.
//!
//! Expects: TTIR (no layouts), helpers inlined, descriptors made in the same function. Descriptor
//! accesses whose descriptor does not come from a `tt.make_tensor_descriptor` are left alone (the
//! backend reports them). Guarantees: the same memory accesses, expressed with pointers.

use std::collections::HashMap;

use crate::ir::{Attr, Attrs, Body, Builder, DType, Elem, Module, Op, Opcode, Type, Value};

/// Rewrites every descriptor access of every function.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let accesses: Vec<Op> = body
            .walk(function.entry)
            .into_iter()
            .filter(|&op| matches!(body.opcode(op), Opcode::DescriptorLoad | Opcode::DescriptorStore))
            .collect();
        let mut replaced = HashMap::new();
        for op in accesses {
            if let Some((old, new)) = rewrite(body, op) {
                replaced.insert(old, new);
            }
        }
        body.replace_uses(function.entry, &replaced);
    }
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
