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
use crate::layout::{Blocked, Encoding};
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
            let order: Vec<usize> = match body.op(op).attrs.ints("order") {
                Some(order) => order.iter().map(|&d| d as usize).collect(),
                None => continue,
            };
            if !feeds_dots {
                continue;
            }
            // A conversion coalesce put between a load and the transpose is left out: the
            // transpose relabels the load's own (vectorized) layout.
            let operand = match body.def_op(operand) {
                Some(convert) if body.opcode(convert) == Opcode::ConvertLayout => {
                    let source = body.op(convert).operands[0];
                    body.ops[op].operands[0] = source;
                    source
                }
                _ => operand,
            };
            let Some(Encoding::Blocked(blocked)) = body.ty(operand).encoding() else { continue };
            let transposed = Encoding::Blocked(permuted(blocked, &order));
            body.values[result].ty = body.ty(result).with_encoding(Some(transposed));
        }
    }
}

/// `blocked` with its dimensions permuted as `tt.trans` permutes them: result dimension `i` is
/// operand dimension `order[i]`.
fn permuted(blocked: &Blocked, order: &[usize]) -> Blocked {
    let pick = |v: &[u32]| order.iter().map(|&d| v[d]).collect::<Vec<u32>>();
    // `order` of a layout lists dimensions; operand dimension `d` is result dimension `i` where
    // `order[i] == d`.
    let position = |d: u32| order.iter().position(|&o| o == d as usize).expect("a permutation") as u32;
    Blocked {
        size_per_thread: pick(&blocked.size_per_thread),
        threads_per_warp: pick(&blocked.threads_per_warp),
        warps_per_cta: pick(&blocked.warps_per_cta),
        order: blocked.order.iter().map(|&d| position(d)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::permuted;
    use crate::layout::Blocked;

    #[test]
    fn a_transposed_blocked_layout_swaps_every_parameter() {
        let loaded = Blocked {
            size_per_thread: vec![1, 8],
            threads_per_warp: vec![2, 16],
            warps_per_cta: vec![8, 1],
            order: vec![1, 0],
        };
        let t = permuted(&loaded, &[1, 0]);
        assert_eq!(t.size_per_thread, [8, 1]);
        assert_eq!(t.threads_per_warp, [16, 2]);
        assert_eq!(t.warps_per_cta, [1, 8]);
        assert_eq!(t.order, [0, 1], "the operand's fastest dimension, 1, is the result's 0");
    }
}
