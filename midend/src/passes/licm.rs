//! Loop-invariant code motion: hoists pure computations out of `scf.for` and `scf.while` bodies.
//!
//! Why: kernels compute pointer bases, splats of loop-invariant scalars and constants inside
//! `for k in range(...)` loops; evaluating them once before the loop saves work in every
//! iteration and lets the pipeliner see loads whose addresses only depend on the induction
//! variable.
//!
//! An op is hoisted when it sits directly in a loop's region (not nested deeper, e.g. inside an
//! `scf.if` of the body, where it would run speculatively), is [`Effect::Pure`], has no regions,
//! is not a terminator, and all its operands are defined outside the loop (or by ops hoisted
//! before it). Integer division and remainder stay: hoisted out of a loop that runs zero times
//! or out of a guarding condition, a division by zero could trap where the program did not
//! divide. Other pure ops are safe to evaluate even if the loop runs zero times. Loops are
//! processed innermost first, so an op can travel out of several nested loops. Hoisted ops keep
//! their order and spans and land right before the loop op.
//!
//! Expects: a verified module. Guarantees: a verified module with the same meaning.

use std::collections::HashSet;

use crate::ir::{Block, Body, Effect, Module, Op, Opcode, Value};

/// Hoists loop-invariant pure ops in every function of the module.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let loops: Vec<Op> = body
            .walk(function.entry)
            .into_iter()
            .filter(|&op| matches!(body.opcode(op), Opcode::For | Opcode::While))
            .collect();
        // The walk is pre-order: a nested loop comes after the loop holding it, so going
        // backwards handles inner loops first.
        for &loop_op in loops.iter().rev() {
            hoist_out_of(body, loop_op);
        }
    }
}

/// Moves the invariant ops of `loop_op`'s regions to right before `loop_op`.
fn hoist_out_of(body: &mut Body, loop_op: Op) {
    let Some(parent_block) = body.op(loop_op).parent else { return };
    let mut defined_inside = values_defined_inside(body, loop_op);
    let mut hoisted: Vec<Op> = Vec::new();

    for region in body.op(loop_op).regions.clone() {
        let ops = std::mem::take(&mut body.blocks[region].ops);
        let mut kept = Vec::with_capacity(ops.len());
        for op in ops {
            let invariant = body.op(op).operands.iter().all(|v| !defined_inside.contains(v));
            if invariant && is_hoistable(body, op) {
                for result in &body.op(op).results {
                    defined_inside.remove(result);
                }
                hoisted.push(op);
            } else {
                kept.push(op);
            }
        }
        body.blocks[region].ops = kept;
    }

    if hoisted.is_empty() {
        return;
    }
    let position =
        body.blocks[parent_block].ops.iter().position(|&o| o == loop_op).expect("loop in its block");
    for (offset, op) in hoisted.into_iter().enumerate() {
        body.insert_op(parent_block, position + offset, op);
    }
}

/// Whether `op` may be evaluated before the loop instead of in it (its operands aside).
fn is_hoistable(body: &Body, op: Op) -> bool {
    let data = body.op(op);
    let info = data.opcode.info();
    let may_trap = matches!(data.opcode, Opcode::DivSI | Opcode::DivUI | Opcode::RemSI | Opcode::RemUI);
    info.effect == Effect::Pure && !info.terminator && data.regions.is_empty() && !may_trap
}

/// Every value defined in `loop_op`'s regions: block arguments (the induction variable and
/// carried values) and results of the ops nested at any depth.
fn values_defined_inside(body: &Body, loop_op: Op) -> HashSet<Value> {
    let mut defined = HashSet::new();
    for &region in &body.op(loop_op).regions {
        add_block_definitions(body, region, &mut defined);
        for op in body.walk(region) {
            defined.extend(body.op(op).results.iter().copied());
            for &nested in &body.op(op).regions {
                add_block_definitions(body, nested, &mut defined);
            }
        }
    }
    defined
}

fn add_block_definitions(body: &Body, block: Block, defined: &mut HashSet<Value>) {
    defined.extend(body.blocks[block].args.iter().copied());
}
