//! Launch the longest programs first: when a kernel's loops run longer or shorter with its
//! program id along one grid axis (causal attention: query block `m` visits `m + 1` key blocks),
//! the programs are renumbered so that the GPU starts the longest ones first and the short ones
//! fill in at the end, as a longest-processing-time-first schedule does.
//!
//! GPUs start programs roughly in launch order, `x` fastest. Causal attention launched as written
//! (`x` the query block, `y` the head) starts each head's programs shortest first, so the longest
//! programs of the last heads start last and run alone at the end. Renumbered, launch position
//! `L = x + y * gx` (within one `z`) runs program
//!
//! ```text
//! group  = L / (GROUP * ga)                      // GROUP values of the other axis b at a time
//! size   = min(GROUP, gb - group * GROUP)        // the last group may be smaller
//! within = L - group * GROUP * ga
//! pid_a  = ga - 1 - within / size                // longest first (or within / size when the
//! pid_b  = group * GROUP + within % size         //   loops shrink as pid_a grows)
//! ```
//!
//! a bijection of the grid onto itself: every program runs once, and a kernel's results do not
//! depend on the order its programs run in (Triton promises no order). Along `b`, `GROUP`
//! values at a time run side by side, so that the data the programs of one `b` share (an
//! attention head's keys and values) stays in L2 while they run.
//!
//! Applies to sm_80+ and Vulkan targets (the interpreter runs TTIR and is unaffected) when every
//! loop directly in the kernel's body has a span (`ub - lb`) that is an affine sum of program ids
//! and kernel parameters, at least one with a constant step depends on a program id, all of those
//! on the same axis (0 or 1) and in the same direction. A grid-stride loop (a step that is not a
//! constant) whose span depends on a program id leaves the kernel as it is. Kernels that print or assert keep their numbering (their
//! output shows program ids). Measured on an H100 (the corpus' causal attention, 2048 keys,
//! 64 heads, one command): flash_attn d64 272 -> 317 TFLOP/s, d128 349 -> 387, flash_attn_desc
//! d128 294 -> 317; with every head in one group instead of 16, d128 fell back to 364 (the heads'
//! keys and values no longer fit in L2); with 8, d64 reached only 281.
//!
//! Expects: TTIR or TTGIR with calls inlined. Guarantees: the same results; the program ids of
//! axes 0 and 1 become arithmetic on the launch position.

use std::collections::BTreeMap;

use crate::analysis::trip_count::{constant_step, span};
use crate::ir::{Attr, Attrs, Body, Builder, DType, Module, Op, Opcode, Type, Value};

/// How many values of the other axis run side by side (see the module docs).
pub const GROUP: i64 = 16;

/// Which axis decides the programs' lengths, and whether they grow along it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WorkAxis {
    axis: i64,
    grows: bool,
}

pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let entry = function.entry;
        let body = &mut function.body;
        let ops = body.walk(entry);
        if ops.iter().any(|&op| matches!(body.opcode(op), Opcode::Print | Opcode::Assert)) {
            continue;
        }
        let Some(work) = work_axis(body, entry) else { continue };
        renumber(body, entry, &ops, work);
    }
}

/// The axis the lengths of the loops directly in `entry` depend on, if they all depend on one
/// (see the module docs).
fn work_axis(body: &Body, entry: crate::ir::Block) -> Option<WorkAxis> {
    let parameters = &body.blocks[entry].args;
    let mut found: Option<WorkAxis> = None;
    for &op in &body.blocks[entry].ops {
        if body.opcode(op) != Opcode::For {
            continue;
        }
        let (terms, _) = span(body, op)?;
        if constant_step(body, op).is_none() {
            // A grid-stride loop (`range(pid, n, num_programs)`): its programs differ by one
            // iteration at most, whatever their order.
            if terms.keys().any(|leaf| !parameters.contains(leaf)) {
                return None;
            }
            continue;
        }
        for (leaf, coefficient) in terms {
            if parameters.contains(&leaf) {
                continue;
            }
            let axis = program_axis(body, leaf)?;
            let this = WorkAxis { axis, grows: coefficient > 0 };
            if found.is_some_and(|f| f != this) || axis > 1 {
                return None;
            }
            found = Some(this);
        }
    }
    found
}

/// The axis of `tt.get_program_id` result `v`.
fn program_axis(body: &Body, v: Value) -> Option<i64> {
    let def = body.def_op(v).filter(|&d| body.opcode(d) == Opcode::GetProgramId)?;
    body.op(def).attrs.int("axis")
}

/// Replaces the program ids of axes 0 and 1 (the ops among `ops`) by the renumbering of the
/// module docs, computed once at the top of `entry` (in 64 bits: `x + y * gx` may not fit 32).
fn renumber(body: &mut Body, entry: crate::ir::Block, ops: &[Op], work: WorkAxis) {
    let old: Vec<Op> = ops
        .iter()
        .copied()
        .filter(|&op| {
            body.opcode(op) == Opcode::GetProgramId && body.op(op).attrs.int("axis").is_some_and(|a| a < 2)
        })
        .collect();
    let span = old.first().map(|&op| body.span(op));
    let mut b = Builder::at(body, entry, 0);
    if let Some(span) = span {
        b.span = span;
    }
    let i32t = Type::scalar(DType::I32);
    let i64t = Type::scalar(DType::I64);
    let grid_value = |b: &mut Builder, opcode: Opcode, axis: i64| {
        let v = b.value(opcode, vec![], i32t.clone(), Attrs::new().with("axis", Attr::Int(axis)));
        b.cast(Opcode::ExtSI, v, i64t.clone())
    };
    let x = grid_value(&mut b, Opcode::GetProgramId, 0);
    let y = grid_value(&mut b, Opcode::GetProgramId, 1);
    let gx = grid_value(&mut b, Opcode::GetNumPrograms, 0);
    let gy = grid_value(&mut b, Opcode::GetNumPrograms, 1);
    let (a, other) = (work.axis, 1 - work.axis);
    let (ga, gb) = if a == 0 { (gx, gy) } else { (gy, gx) };
    let group_size = b.const_int(DType::I64, GROUP);
    let one = b.const_int(DType::I64, 1);
    let arith = |b: &mut Builder, opcode: Opcode, l: Value, r: Value| b.same_type(opcode, vec![l, r]);
    let row = arith(&mut b, Opcode::MulI, y, gx);
    let launch = arith(&mut b, Opcode::AddI, x, row);
    let per_group = arith(&mut b, Opcode::MulI, group_size, ga);
    let group = arith(&mut b, Opcode::DivSI, launch, per_group);
    let first_b = arith(&mut b, Opcode::MulI, group, group_size);
    let left = arith(&mut b, Opcode::SubI, gb, first_b);
    let size = arith(&mut b, Opcode::MinSI, group_size, left);
    let before = arith(&mut b, Opcode::MulI, group, per_group);
    let within = arith(&mut b, Opcode::SubI, launch, before);
    let rank = arith(&mut b, Opcode::DivSI, within, size);
    let pid_a = if work.grows {
        let last = arith(&mut b, Opcode::SubI, ga, one);
        arith(&mut b, Opcode::SubI, last, rank)
    } else {
        rank
    };
    let offset = arith(&mut b, Opcode::RemSI, within, size);
    let pid_b = arith(&mut b, Opcode::AddI, first_b, offset);
    let pid_a = b.cast(Opcode::TruncI, pid_a, i32t.clone());
    let pid_b = b.cast(Opcode::TruncI, pid_b, i32t);
    let by_axis = BTreeMap::from([(a, pid_a), (other, pid_b)]);
    let mut replaced = std::collections::HashMap::new();
    for op in old {
        let axis = body.op(op).attrs.int("axis").expect("a program id has an axis");
        replaced.insert(body.op(op).results[0], by_axis[&axis]);
        body.detach_op(op);
    }
    body.replace_uses(entry, &replaced);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The renumbering of the module docs, evaluated on the host.
    fn renumbered(l: i64, ga: i64, gb: i64, grows: bool) -> (i64, i64) {
        let group = l / (GROUP * ga);
        let size = GROUP.min(gb - group * GROUP);
        let within = l - group * GROUP * ga;
        let rank = within / size;
        (if grows { ga - 1 - rank } else { rank }, group * GROUP + within % size)
    }

    #[test]
    fn the_renumbering_is_a_bijection_that_starts_with_the_longest_programs() {
        for (ga, gb) in [(16, 64), (16, 6), (5, 1), (1, 40), (3, 17)] {
            for grows in [true, false] {
                let mut seen = std::collections::HashSet::new();
                for l in 0..ga * gb {
                    let (pa, pb) = renumbered(l, ga, gb, grows);
                    assert!((0..ga).contains(&pa) && (0..gb).contains(&pb), "{ga}x{gb}: {l} -> {pa}, {pb}");
                    assert!(seen.insert((pa, pb)), "{ga}x{gb}: ({pa}, {pb}) twice");
                }
                let (first, _) = renumbered(0, ga, gb, grows);
                assert_eq!(first, if grows { ga - 1 } else { 0 });
            }
        }
    }
}
