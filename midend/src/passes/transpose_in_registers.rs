//! Transpose in registers: a `tt.trans` that only feeds dots takes the transposed layout of its
//! operand (each thread keeps the elements it holds, the dimensions relabeled), on targets whose
//! dots read their operands in any layout (Vulkan: the spirv backend stages them through
//! workgroup memory itself).
//!
//! convert-to-gpu gives a transpose's result the default layout of its shape, and the layout
//! passes leave transposes alone (remove-layout-conversions counts them as anchors), so a
//! transpose was a full round trip through workgroup memory. That memory can crowd a kernel's
//! dots off the cooperative matrices: the corpus' descriptor flash attention (`k.T` of a
//! descriptor load), d128 on the H100's Vulkan driver, needed 48 KiB and ran every dot on FMA.
//! Here the transpose relabels its operand's layout instead (Triton infers a transpose's result
//! layout so too), reading past a conversion in front of it: the backend moves no element.
//!
//! Not yet: the operand's load keeps the layout remove-layout-conversions gave it, unvectorized
//! where the load's masks anchored it to the default layout (the descriptor attention's bounds
//! masks). Run before remove-layout-conversions instead, this pass let the load keep its
//! coalesced layout, but that pass then converted it back to the masks' layout in front of the
//! transpose, and the round trip returned.
//!
//! Expects: TTGIR after accelerate-matmul (NVIDIA targets are left alone: their dots' operand
//! layouts are accelerate-matmul's). Guarantees: the same values; each rewritten transpose's
//! result layout is its operand's with the dimensions permuted by `order`.

use crate::ir::{Module, Opcode};
use crate::layout::Encoding;
use crate::passes::uses::users_in;
use crate::target::Target;

/// Rewrites the transposes of every function of `module`, on targets without tensor-core
/// layouts.
pub fn run(module: &mut Module, target: &Target) {
    if target.compute_capability.is_some() {
        return;
    }
    for function in &mut module.functions {
        let body = &mut function.body;
        let ops = body.walk(function.entry);
        let users = users_in(body, &ops);
        for op in ops {
            if body.opcode(op) != Opcode::Trans {
                continue;
            }
            let (operand, result) = (body.op(op).operands[0], body.op(op).results[0]);
            let feeds_dots = users.get(&result).is_some_and(|u| {
                !u.is_empty() && u.iter().all(|&(user, slot)| body.opcode(user).is_dot() && slot < 2)
            });
            let Some(order) = body.op(op).attrs.ints("order").filter(|_| feeds_dots) else { continue };
            let order: Vec<usize> = order.iter().map(|&d| d as usize).collect();
            // A conversion coalesce put between a load and the transpose is left out: the
            // transpose relabels the load's own (vectorized) layout.
            let source = match body.def_op(operand) {
                Some(convert) if body.opcode(convert) == Opcode::ConvertLayout => {
                    body.op(convert).operands[0]
                }
                _ => operand,
            };
            let Some(Encoding::Blocked(blocked)) = body.ty(source).encoding() else { continue };
            let transposed = Encoding::Blocked(blocked.permuted(&order));
            body.ops[op].operands[0] = source;
            body.values[result].ty = body.ty(result).with_encoding(Some(transposed));
        }
    }
}
