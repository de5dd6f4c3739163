//! Combine: Triton's `triton-combine` peephole patterns.
//!
//! Why: the frontend lowers `acc += tl.dot(a, b)` as a dot with a zero accumulator followed by
//! an add, `p + i + j` on pointers as two `addptr`s, and `tl.where(mask, tl.load(p, mask), o)`
//! as a select around a masked load. Each pattern has a cheaper single-op form that the later
//! passes (accelerate-matmul above all) look for.
//!
//! Rewrites, each applied until none matches:
//! - `arith.addf(tt.dot(a, b, zero), c)` in either operand order becomes `tt.dot(a, b, c)` when
//!   the dot's only use is the add and both sit in the same block (`arith.addi` for integer
//!   dots). The new dot keeps the old dot's span and attributes. Dots with a nonzero
//!   `max_num_imprecise_acc` are left alone: their accumulator precision matters (fp8).
//! - `tt.addptr(tt.addptr(p, i), j)` becomes `tt.addptr(p, arith.addi(i, j))` when `i` and `j`
//!   have the same type and both addptrs sit in the same block (so that no addition moves into
//!   a loop). The inner addptr stays if it has other uses.
//! - `arith.select(c, tt.load(p, c), o)` becomes `tt.load(p, c, o)` when the load's only use is
//!   the select, both sit in the same block, and no writing op lies between them (the load moves
//!   down to the select, which must not change what it reads).
//!
//! Expects: a verified module. Guarantees: a verified module with the same meaning; replaced
//! ops are unlinked, except inner addptrs, which DCE removes when dead.

use std::collections::HashMap;

use super::uses::UseCounts;
use crate::ir::{Attr, Attrs, Block, Body, Effect, Module, Op, Opcode, Span, Type, Value};

/// Sweeps after which the pass stops even if a pattern still matched.
const MAX_SWEEPS: usize = 16;

/// Applies the combine patterns to every function.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        for _ in 0..MAX_SWEEPS {
            if !sweep(&mut function.body, function.entry) {
                break;
            }
        }
    }
}

/// One pass over a function in program order; returns whether anything changed. Use counts are
/// taken at the start: a rewrite never adds uses to a dot or load result, so a count of one
/// stays true within the sweep (new values have a count of zero and wait for the next sweep).
fn sweep(body: &mut Body, entry: Block) -> bool {
    let uses = UseCounts::compute(body, entry);
    let mut replacements: HashMap<Value, Value> = HashMap::new();
    for op in body.walk(entry) {
        // An earlier rewrite of this sweep may have unlinked it.
        if body.op(op).parent.is_none() {
            continue;
        }
        resolve_operands(body, op, &replacements);
        let replacement = match body.opcode(op) {
            Opcode::AddF | Opcode::AddI => fuse_dot_accumulator(body, &uses, op),
            Opcode::AddPtr => merge_addptrs(body, op),
            Opcode::Select => select_to_masked_load(body, &uses, op),
            _ => None,
        };
        if let Some(value) = replacement {
            replacements.insert(body.result(op), value);
            body.detach_op(op);
        }
    }
    body.replace_uses(entry, &replacements);
    !replacements.is_empty()
}

/// Substitutes the replacements made so far in `op`'s operands.
fn resolve_operands(body: &mut Body, op: Op, replacements: &HashMap<Value, Value>) {
    for operand in body.ops[op].operands.iter_mut() {
        while let Some(&next) = replacements.get(operand) {
            *operand = next;
        }
    }
}

/// The op defining `v` when it has opcode `opcode`.
fn defined_by(body: &Body, v: Value, opcode: Opcode) -> Option<Op> {
    body.def_op(v).filter(|&op| body.opcode(op) == opcode)
}

/// Whether `v` is an `arith.constant` zero (integer zero, or float zero of either sign).
pub(crate) fn is_zero_constant(body: &Body, v: Value) -> bool {
    let Some(constant) = defined_by(body, v, Opcode::Constant) else { return false };
    match body.op(constant).attrs.get("value") {
        Some(Attr::Int(n)) => *n == 0,
        Some(Attr::Bool(b)) => !*b,
        Some(Attr::Float(x)) => *x == 0.0,
        _ => false,
    }
}

/// Creates a detached op and links it right before `anchor`, in `anchor`'s block.
fn insert_before(
    body: &mut Body,
    anchor: Op,
    opcode: Opcode,
    operands: Vec<Value>,
    result_type: Type,
    attrs: Attrs,
    span: Span,
) -> Value {
    let block = body.op(anchor).parent.expect("anchor is linked");
    let position = body.blocks[block].ops.iter().position(|&o| o == anchor).expect("anchor in its block");
    let op = body.create_op(opcode, operands, &[result_type], attrs, vec![], span);
    body.insert_op(block, position, op);
    body.result(op)
}

/// `add(dot(a, b, 0), c)` → `dot(a, b, c)`; returns the new dot's result.
fn fuse_dot_accumulator(body: &mut Body, uses: &UseCounts, add: Op) -> Option<Value> {
    let [lhs, rhs] = body.op(add).operands[..] else { return None };
    let (dot, other) = match (defined_by(body, lhs, Opcode::Dot), defined_by(body, rhs, Opcode::Dot)) {
        (Some(dot), _) if dot_accumulates_zero(body, uses, dot, add) => (dot, rhs),
        (_, Some(dot)) if dot_accumulates_zero(body, uses, dot, add) => (dot, lhs),
        _ => return None,
    };
    let result_type = body.ty(body.result(add)).clone();
    if *body.ty(other) != result_type || *body.ty(body.result(dot)) != result_type {
        return None;
    }
    let dot_data = body.op(dot);
    let operands = vec![dot_data.operands[0], dot_data.operands[1], other];
    let (attrs, span) = (dot_data.attrs.clone(), body.span(dot));
    let fused = insert_before(body, add, Opcode::Dot, operands, result_type, attrs, span);
    body.detach_op(dot);
    Some(fused)
}

/// Whether `dot` may take `add`'s other operand as its accumulator.
fn dot_accumulates_zero(body: &Body, uses: &UseCounts, dot: Op, add: Op) -> bool {
    let data = body.op(dot);
    let precise_accumulation = data.attrs.int("max_num_imprecise_acc").unwrap_or(0) != 0;
    let is_float_dot = body.ty(body.result(dot)).dtype().is_float();
    let add_matches_kind = is_float_dot == (body.opcode(add) == Opcode::AddF);
    add_matches_kind
        && !precise_accumulation
        && data.parent == body.op(add).parent
        && uses.get(body.result(dot)) == 1
        && is_zero_constant(body, data.operands[2])
}

/// `addptr(addptr(p, i), j)` → `addptr(p, i + j)`; returns the new addptr's result.
fn merge_addptrs(body: &mut Body, outer: Op) -> Option<Value> {
    let [inner_result, outer_offset] = body.op(outer).operands[..] else { return None };
    let inner = defined_by(body, inner_result, Opcode::AddPtr)?;
    let [base, inner_offset] = body.op(inner).operands[..] else { return None };
    if body.op(inner).parent != body.op(outer).parent || body.ty(inner_offset) != body.ty(outer_offset) {
        return None;
    }
    let offset_type = body.ty(outer_offset).clone();
    let result_type = body.ty(body.result(outer)).clone();
    let span = body.span(outer);
    let sum = insert_before(
        body,
        outer,
        Opcode::AddI,
        vec![inner_offset, outer_offset],
        offset_type,
        Attrs::new(),
        span,
    );
    Some(insert_before(body, outer, Opcode::AddPtr, vec![base, sum], result_type, Attrs::new(), span))
}

/// `select(c, load(p, c), o)` → `load(p, c, o)`; returns the new load's result.
fn select_to_masked_load(body: &mut Body, uses: &UseCounts, select: Op) -> Option<Value> {
    let [cond, on_true, on_false] = body.op(select).operands[..] else { return None };
    let load = defined_by(body, on_true, Opcode::Load)?;
    let load_data = body.op(load);
    let [pointer, mask] = load_data.operands[..] else { return None };
    let result_type = body.ty(body.result(select)).clone();
    let fits = mask == cond
        && uses.get(on_true) == 1
        && *body.ty(on_true) == result_type
        && *body.ty(on_false) == result_type
        && load_data.parent == body.op(select).parent
        && !writes_between(body, load, select);
    if !fits {
        return None;
    }
    let (attrs, span) = (load_data.attrs.clone(), body.span(load));
    let masked =
        insert_before(body, select, Opcode::Load, vec![pointer, mask, on_false], result_type, attrs, span);
    body.detach_op(load);
    Some(masked)
}

/// Whether an op that may write memory lies strictly between `first` and `last` of one block.
/// Ops with regions count as writing (their bodies may store).
fn writes_between(body: &Body, first: Op, last: Op) -> bool {
    let Some(block) = body.op(first).parent else { return true };
    let ops = &body.blocks[block].ops;
    let (Some(start), Some(end)) =
        (ops.iter().position(|&o| o == first), ops.iter().position(|&o| o == last))
    else {
        return true;
    };
    ops[start + 1..end].iter().any(|&op| {
        let data = body.op(op);
        data.opcode.info().effect == Effect::Write || !data.regions.is_empty()
    })
}
