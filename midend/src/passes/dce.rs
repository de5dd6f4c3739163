//! Dead-code elimination: deletes ops whose results nobody uses and that have no side effect.
//!
//! Why: folding, combining and CSE leave behind constants, splats and address computations whose
//! last use went away; the frontend also lowers every Python expression, used or not. Removing
//! them keeps the IR small for the layout passes and the backends.
//!
//! What it removes, repeated until nothing changes:
//! - ops whose results are all unused and whose effect is [`Effect::Pure`] or [`Effect::Read`]
//!   (terminators excepted; a `tt.load` with `volatile = true` stays: the read itself is wanted);
//!   a removed op's regions go with it;
//! - `scf.for` iteration arguments whose result is unused and whose block argument only feeds,
//!   directly or through droppable ops of the body, the matching `scf.yield` operand (the loop
//!   carries a value nobody reads);
//! - `scf.if` results that are unused (the matching yield operands go too);
//! - `scf.if` and `scf.for` ops left with no results and nothing but a terminator in their
//!   regions. (`scf.while` loops stay: they may not terminate.)
//!
//! Expects: a verified module. Guarantees: a verified module with the same meaning; every
//! remaining Pure or non-volatile Read op has a used result.

use std::collections::HashSet;

use super::uses::UseCounts;
use crate::ir::{Block, Body, Effect, Module, Op, Opcode, Value, ValueDef};

/// Rounds after which the pass stops even if something still changed (each round removes at
/// least one op or value, so this bound is never reached in practice).
const MAX_ROUNDS: usize = 64;

/// Removes dead code from every function of the module.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        for _ in 0..MAX_ROUNDS {
            let removed_ops = remove_dead_ops(&mut function.body, function.entry);
            let pruned_results = prune_unused_results(&mut function.body, function.entry);
            if !removed_ops && !pruned_results {
                break;
            }
        }
    }
}

/// Deletes dead ops in one backward sweep; returns whether any went.
///
/// Going backwards in program order visits every use before its definition (a region's ops come
/// after the op holding the region in pre-order), so a chain of dead ops dies in one sweep.
fn remove_dead_ops(body: &mut Body, entry: Block) -> bool {
    let mut uses = UseCounts::compute(body, entry);
    let mut dead: HashSet<Op> = HashSet::new();
    for op in body.walk(entry).into_iter().rev() {
        if is_removable(body, op) && uses.all_results_unused(body, op) {
            forget_uses(body, op, &dead, &mut uses);
            dead.insert(op);
        }
    }
    if dead.is_empty() {
        return false;
    }
    for op in body.walk(entry) {
        for region in body.op(op).regions.clone() {
            unlink_dead(body, region, &dead);
        }
    }
    unlink_dead(body, entry, &dead);
    true
}

/// Whether `op` may be deleted once its results are unused.
fn is_removable(body: &Body, op: Op) -> bool {
    let data = body.op(op);
    let info = data.opcode.info();
    if info.terminator {
        return false;
    }
    match info.effect {
        Effect::Pure => true,
        Effect::Read => !(data.opcode == Opcode::Load && data.attrs.bool("volatile") == Some(true)),
        Effect::Write => is_empty_control_flow(body, op),
    }
}

/// An `scf.if` or `scf.for` with no results whose regions hold at most their terminators: it
/// does nothing. (`scf.for` always terminates; `scf.while` need not, so it is not included.)
fn is_empty_control_flow(body: &Body, op: Op) -> bool {
    let data = body.op(op);
    if !matches!(data.opcode, Opcode::If | Opcode::For) || !data.results.is_empty() {
        return false;
    }
    data.regions.iter().all(|&region| {
        let ops = &body.blocks[region].ops;
        ops.iter().all(|&nested| body.opcode(nested) == Opcode::Yield)
    })
}

/// Forgets the uses made by `op` and by the live ops nested in its regions (ops already found
/// dead have forgotten theirs).
fn forget_uses(body: &Body, op: Op, dead: &HashSet<Op>, uses: &mut UseCounts) {
    for &operand in &body.op(op).operands {
        uses.remove_use(operand);
    }
    for &region in &body.op(op).regions {
        for &nested in &body.blocks[region].ops {
            if !dead.contains(&nested) {
                forget_uses(body, nested, dead, uses);
            }
        }
    }
}

fn unlink_dead(body: &mut Body, block: Block, dead: &HashSet<Op>) {
    let ops = std::mem::take(&mut body.blocks[block].ops);
    let (removed, kept): (Vec<Op>, Vec<Op>) = ops.into_iter().partition(|op| dead.contains(op));
    for op in removed {
        body.ops[op].parent = None;
    }
    body.blocks[block].ops = kept;
}

/// Drops unused `scf.for` iteration arguments and unused `scf.if` results; returns whether any
/// went.
fn prune_unused_results(body: &mut Body, entry: Block) -> bool {
    let mut uses = UseCounts::compute(body, entry);
    let mut changed = false;
    for op in body.walk(entry) {
        let result_count = body.op(op).results.len();
        match body.opcode(op) {
            Opcode::For => {
                for index in (0..result_count).rev() {
                    if let Some(slice) = dead_iter_arg_slice(body, &uses, op, index) {
                        remove_for_iter_arg(body, &mut uses, op, index, slice);
                        changed = true;
                    }
                }
            }
            Opcode::If => {
                for index in (0..result_count).rev() {
                    let yields = region_yields(body, op);
                    let well_formed = yields.iter().all(|&y| body.op(y).operands.len() == result_count);
                    if well_formed && uses.is_unused(body.op(op).results[index]) {
                        remove_if_result(body, &mut uses, op, &yields, index);
                        changed = true;
                    }
                }
            }
            _ => {}
        }
    }
    changed
}

/// The `scf.yield` terminator of a region, if it has one.
fn terminator_yield(body: &Body, region: Block) -> Option<Op> {
    body.blocks[region].ops.last().copied().filter(|&op| body.opcode(op) == Opcode::Yield)
}

/// The yields ending the regions of an `scf.if` (both regions must have one to prune).
fn region_yields(body: &Body, op: Op) -> Vec<Op> {
    let regions = &body.op(op).regions;
    let yields: Vec<Op> = regions.iter().filter_map(|&r| terminator_yield(body, r)).collect();
    if yields.len() == regions.len() {
        yields
    } else {
        Vec::new()
    }
}

/// If iteration argument `index` of an `scf.for` carries a value nobody reads, the ops of the
/// body that only serve to compute its next value (the "slice"); `None` when it is live.
///
/// The argument is dead when its result is unused and every use of the block argument, and of
/// the results of the ops computing from it, is either a droppable op of the body block (which
/// joins the slice) or the yield operand at the same position. This catches the common cycle
/// `arg -> arith -> yield -> arg`, which plain use counting never sees as dead.
fn dead_iter_arg_slice(body: &Body, uses: &UseCounts, op: Op, index: usize) -> Option<Vec<Op>> {
    let data = body.op(op);
    let region = *data.regions.first()?;
    let yield_op = terminator_yield(body, region)?;
    let block_arg = *body.blocks[region].args.get(index + 1)?;
    if !uses.is_unused(data.results[index]) {
        return None;
    }
    let mut slice: Vec<Op> = Vec::new();
    let mut in_slice: HashSet<Op> = HashSet::new();
    let mut worklist = vec![block_arg];
    while let Some(value) = worklist.pop() {
        let mut uses_in_body_block = 0;
        for &user in &body.blocks[region].ops {
            for (position, &operand) in body.op(user).operands.iter().enumerate() {
                if operand != value {
                    continue;
                }
                uses_in_body_block += 1;
                if user == yield_op {
                    if position != index {
                        return None;
                    }
                    continue;
                }
                if !is_removable(body, user) || !body.op(user).regions.is_empty() {
                    return None;
                }
                if in_slice.insert(user) {
                    slice.push(user);
                    worklist.extend(body.op(user).results.iter().copied());
                }
            }
        }
        // A use elsewhere (in a nested region, or after the loop) keeps the value alive.
        if uses_in_body_block != uses.get(value) {
            return None;
        }
    }
    Some(slice)
}

/// Removes iteration argument `index` of an `scf.for`: its init, result, block argument and
/// yield operand, and the slice of ops that computed its next value.
fn remove_for_iter_arg(body: &mut Body, uses: &mut UseCounts, op: Op, index: usize, slice: Vec<Op>) {
    let region = body.op(op).regions[0];
    for dead in slice {
        for &operand in &body.op(dead).operands {
            uses.remove_use(operand);
        }
        body.detach_op(dead);
    }
    let yield_op = terminator_yield(body, region).expect("checked by dead_iter_arg_slice");
    let yielded = body.ops[yield_op].operands.remove(index);
    uses.remove_use(yielded);
    let init = body.ops[op].operands.remove(3 + index);
    uses.remove_use(init);
    body.ops[op].results.remove(index);
    renumber_results(body, op);
    // Block argument 0 is the induction variable; iteration argument `index` is argument
    // `index + 1`.
    body.blocks[region].args.remove(index + 1);
    renumber_block_args(body, region);
}

fn remove_if_result(body: &mut Body, uses: &mut UseCounts, op: Op, yields: &[Op], index: usize) {
    for &yield_op in yields {
        let yielded = body.ops[yield_op].operands.remove(index);
        uses.remove_use(yielded);
    }
    body.ops[op].results.remove(index);
    renumber_results(body, op);
}

/// Makes each result's definition name its current position.
fn renumber_results(body: &mut Body, op: Op) {
    let results: Vec<Value> = body.op(op).results.clone();
    for (i, result) in results.into_iter().enumerate() {
        body.values[result].def = ValueDef::Result(op, i as u32);
    }
}

/// Makes each block argument's definition name its current position.
fn renumber_block_args(body: &mut Body, block: Block) {
    let args: Vec<Value> = body.blocks[block].args.clone();
    for (i, arg) in args.into_iter().enumerate() {
        body.values[arg].def = ValueDef::Arg(block, i as u32);
    }
}
