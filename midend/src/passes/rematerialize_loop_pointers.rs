//! Loop-carried pointer tensors become a carried scalar offset, with the pointers recomputed
//! inside the loop.
//!
//! Kernels written as `a_ptrs = base + offsets` before a loop and `a_ptrs += BLOCK_K * stride`
//! inside it carry a whole tensor of 64-bit pointers through every iteration: one register per
//! element per thread, kept live next to the accumulators (a 128x64 tile over 256 threads is 32
//! pointer registers per thread, per operand). LLVM rematerializes such pointers for Triton; this
//! pass does it at the IR level: the iter arg `P` with `yield addptr(P, splat(s))` (`s` a
//! loop-invariant scalar; or `yield addptr(P, c)` with `c` an integer constant tensor) is
//! replaced by a carried `i64` offset `o` (starting at 0, advanced by `s` each iteration), and
//! `P` inside the body is `addptr(P0, splat(o))` where `P0` is a clone,
//! inside the body, of the pure ops that computed the initial pointers (stopping at layout
//! conversions and memory ops, which are not cheap to redo). The old iter arg is left unused for
//! DCE. `addptr(addptr(p, a), b) = addptr(p, a + b)`, and the offset is 64-bit, so the addresses
//! are exactly the same.
//!
//! Expects: TTGIR (runs after convert-to-gpu, and after every pass that would hoist the clones
//! back out, such as LICM). Guarantees: the same addresses, fewer live registers.

use std::collections::HashMap;

use crate::ir::{
    Attrs, Block, Body, Builder, DType, Effect, Elem, Module, Op, Opcode, Type, Value, ValueDef,
};

/// Rewrites every eligible loop-carried pointer tensor of every function.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let loops: Vec<Op> =
            body.walk(function.entry).into_iter().filter(|&op| body.opcode(op) == Opcode::For).collect();
        for lp in loops {
            let carried = body.op(lp).results.len();
            for k in 0..carried {
                rewrite(body, lp, k);
            }
        }
    }
}

/// Whether `v` is defined outside `region` (so it is loop-invariant).
fn defined_outside(body: &Body, v: Value, region: Block) -> bool {
    let mut block = match body.values[v].def {
        ValueDef::Result(op, _) => body.op(op).parent,
        ValueDef::Arg(b, _) => Some(b),
    };
    while let Some(b) = block {
        if b == region {
            return false;
        }
        block = body.blocks[b].parent_op.and_then(|op| body.op(op).parent);
    }
    true
}

/// The per-iteration pointer advance: a loop-invariant integer scalar (`splat(s)`), or an integer
/// constant tensor with one value (what `BLOCK_K * stride` folds to when the stride is a
/// specialized constant).
enum Step {
    Scalar(Value),
    Constant(i64),
}

fn loop_invariant_step(body: &Body, offsets: Value, region: Block) -> Option<Step> {
    let def = body.def_op(offsets)?;
    match body.opcode(def) {
        Opcode::Splat => {
            let s = body.op(def).operands[0];
            (defined_outside(body, s, region) && body.ty(s).dtype().is_int()).then_some(Step::Scalar(s))
        }
        Opcode::Constant if body.ty(offsets).dtype().is_int() => {
            body.op(def).attrs.int("value").map(Step::Constant)
        }
        _ => None,
    }
}

fn rewrite(body: &mut Body, lp: Op, k: usize) {
    let region = body.op(lp).regions[0];
    let arg = body.blocks[region].args[k + 1];
    let ty = body.ty(arg).clone();
    if !ty.is_tensor() || !ty.is_ptr() {
        return;
    }
    let Some(&yield_op) = body.blocks[region].ops.last() else { return };
    let next = body.op(yield_op).operands[k];
    // The recurrence must be P' = addptr(P, splat(s)) with s loop-invariant.
    let Some(step_op) = body.def_op(next).filter(|&d| body.opcode(d) == Opcode::AddPtr) else { return };
    if body.op(step_op).operands[0] != arg {
        return;
    }
    let Some(step) = loop_invariant_step(body, body.op(step_op).operands[1], region) else { return };
    let init = body.op(lp).operands[k + 3];
    let span = body.span(lp);
    let i64_ty = Type::scalar(DType::I64);

    // The new carried offset: operand (init 0), block arg, result.
    let Some(parent) = body.op(lp).parent else { return };
    let index = body.blocks[parent].ops.iter().position(|&o| o == lp).unwrap_or(0);
    let mut b = Builder::at(body, parent, index);
    b.span = span;
    let zero = b.const_int(DType::I64, 0);
    let s = match step {
        Step::Scalar(s) => s,
        Step::Constant(c) => b.const_int(DType::I64, c),
    };
    let (o, o_final) = body.add_iter_arg(lp, zero, i64_ty.clone());

    // Inside: P = addptr(clone of P0's computation, splat(o)).
    let mut b = Builder::at(body, region, 0);
    b.span = span;
    let mut clones = HashMap::new();
    let p0 = clone_chain(&mut b, init, &mut clones);
    let offsets = b.value(Opcode::Splat, vec![o], ty.with_elem(Elem::Scalar(DType::I64)), Attrs::new());
    let current = b.value(Opcode::AddPtr, vec![p0, offsets], ty.clone(), Attrs::new());
    let mut map = HashMap::new();
    map.insert(arg, current);
    // `replace_uses` walks the whole region; the new ops do not use `arg`, so this only moves
    // the body's uses (the step op included, which then becomes dead).
    body.replace_uses(region, &map);
    // The old iter arg keeps being yielded to itself and dies in DCE.
    body.ops[yield_op].operands[k] = arg;
    let yield_index = body.blocks[region].ops.len() - 1;
    let mut b = Builder::at(body, region, yield_index);
    b.span = span;
    let s64 = if b.ty(s).dtype() == DType::I64 {
        s
    } else {
        let op = if b.ty(s).dtype().is_unsigned_int() { Opcode::ExtUI } else { Opcode::ExtSI };
        b.cast(op, s, i64_ty.clone())
    };
    let o_next = b.value(Opcode::AddI, vec![o, s64], i64_ty, Attrs::new());
    body.ops[yield_op].operands.push(o_next);

    // After the loop: uses of the old result become addptr(init, splat(o_final)).
    let result = body.op(lp).results[k];
    let index = body.blocks[parent].ops.iter().position(|&x| x == lp).unwrap_or(0);
    let mut b = Builder::at(body, parent, index + 1);
    b.span = span;
    let final_offsets =
        b.value(Opcode::Splat, vec![o_final], ty.with_elem(Elem::Scalar(DType::I64)), Attrs::new());
    let after = b.value(Opcode::AddPtr, vec![init, final_offsets], ty, Attrs::new());
    let uses_after: Vec<Op> = body.blocks[parent].ops.iter().copied().filter(|&x| x != lp).collect();
    for op in uses_after {
        if body.op(op).results.contains(&after) {
            continue;
        }
        let nested = body.walk_op(op);
        for o in nested {
            for operand in body.ops[o].operands.iter_mut() {
                if *operand == result {
                    *operand = after;
                }
            }
        }
    }
}

/// Clones the pure, region-free ops computing `v` at the builder's position (memoized), stopping
/// at layout conversions, memory ops and anything with regions or effects.
fn clone_chain(b: &mut Builder, v: Value, clones: &mut HashMap<Value, Value>) -> Value {
    if let Some(&c) = clones.get(&v) {
        return c;
    }
    let Some(op) = b.body.def_op(v) else { return v };
    let data = b.body.op(op).clone();
    let info = data.opcode.info();
    let cheap = info.effect == Effect::Pure
        && info.regions == 0
        && data.results.len() == 1
        && data.opcode != Opcode::ConvertLayout
        && b.body.ty(v).is_tensor();
    if !cheap {
        return v;
    }
    let operands: Vec<Value> = data.operands.iter().map(|&x| clone_chain(b, x, clones)).collect();
    let ty = b.body.ty(v).clone();
    let c = b.value(data.opcode, operands, ty, data.attrs.clone());
    clones.insert(v, c);
    c
}
