//! Loop unrolling: an `scf.for` with `tt.loop_unroll_factor = U` (`tl.range(...,
//! loop_unroll_factor=U)`) runs its body `U` times per iteration (Triton's `loop_unroll` pass).
//!
//! ```text
//! r = for i in [lb, ub) step s (c = init) { c' = body(i, c); yield c' }
//! ```
//! becomes a main loop over whole groups of `U` iterations and the original loop, now the
//! remainder, running the iterations left over:
//! ```text
//! span = s * U
//! main_ub = lb + (max(ub - lb, 0) / span) * span
//! m = for i in [lb, main_ub) step span (c = init) {
//!     c1 = body(i, c); c2 = body(i + s, c1); ...; cU = body(i + (U-1) s, c{U-1}); yield cU }
//! r = for i in [main_ub, ub) step s (c = m) { c' = body(i, c); yield c' }
//! ```
//! Every copy in the main loop runs an iteration below `main_ub <= ub`, so no guard is needed;
//! the remainder runs fewer than `U` iterations. The step is positive (the frontend rejects
//! other constant steps; a runtime step is assumed positive, as by `scf.for`).
//!
//! Expects: TTIR, helpers inlined. Guarantees: the same iterations in the same order, so the same
//! values; neither loop keeps the attribute (the remainder is not unrolled again). A factor of 1
//! or less leaves the loop alone.

use std::collections::HashMap;

use crate::ir::clone::{clone_op, map_value};
use crate::ir::{Attrs, Body, Builder, Module, Op, Opcode, Type, Value};

/// Unrolls every loop of every function that asks for it.
pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let loops: Vec<Op> = body
            .walk(function.entry)
            .into_iter()
            .filter(|&op| {
                body.opcode(op) == Opcode::For && body.op(op).attrs.get("tt.loop_unroll_factor").is_some()
            })
            .collect();
        for lp in loops {
            let factor = body.op(lp).attrs.int("tt.loop_unroll_factor").unwrap_or(1);
            body.ops[lp].attrs.remove("tt.loop_unroll_factor");
            if factor > 1 {
                unroll(body, lp, factor);
            }
        }
    }
}

/// Splits loop `lp` into a main loop unrolled `factor` times and the remainder (the module docs);
/// returns the main loop (`lp` is the remainder).
pub(crate) fn unroll(body: &mut Body, lp: Op, factor: i64) -> Op {
    let data = body.op(lp).clone();
    let (lb, ub, step) = (data.operands[0], data.operands[1], data.operands[2]);
    let inits = data.operands[3..].to_vec();
    let region = data.regions[0];
    let parent = data.parent.expect("a loop sits in a block");
    let index = body.blocks[parent].ops.iter().position(|&o| o == lp).expect("the loop is in its block");
    let iv_ty = body.ty(lb).clone();
    let d = iv_ty.dtype();

    // The main loop's bounds, before the loop.
    let span_of_loop = body.span(lp);
    let mut b = Builder::at(body, parent, index);
    b.span = span_of_loop;
    let count = b.const_int(d, factor);
    let span = b.value(Opcode::MulI, vec![step, count], iv_ty.clone(), Attrs::new());
    let zero = b.const_int(d, 0);
    let extent = b.value(Opcode::SubI, vec![ub, lb], iv_ty.clone(), Attrs::new());
    let empty = b.cmpi("slt", extent, zero);
    let extent = b.select(empty, zero, extent);
    let groups = b.value(Opcode::DivSI, vec![extent, span], iv_ty.clone(), Attrs::new());
    let covered = b.value(Opcode::MulI, vec![groups, span], iv_ty.clone(), Attrs::new());
    let main_ub = b.value(Opcode::AddI, vec![lb, covered], iv_ty.clone(), Attrs::new());

    // The main loop: the body cloned `factor` times, each copy reading the previous one's yield.
    let carried_types: Vec<Type> = inits.iter().map(|&v| body.ty(v).clone()).collect();
    let mut arg_types = vec![iv_ty.clone()];
    arg_types.extend(carried_types.iter().cloned());
    let main_block = body.new_block(&arg_types);
    let main_args = body.blocks[main_block].args.clone();
    let source = body.clone();
    let old_args = source.blocks[region].args.clone();
    let body_ops = source.blocks[region].ops.clone();
    let (yield_op, ops) = body_ops.split_last().expect("a loop body ends in scf.yield");
    let mut carried: Vec<Value> = main_args[1..].to_vec();
    for copy in 0..factor {
        let mut b = Builder::at_end(body, main_block);
        b.span = source.span(lp);
        let iv = match copy {
            0 => main_args[0],
            _ => {
                let offset = b.const_int(d, copy);
                let distance = b.value(Opcode::MulI, vec![step, offset], iv_ty.clone(), Attrs::new());
                b.value(Opcode::AddI, vec![main_args[0], distance], iv_ty.clone(), Attrs::new())
            }
        };
        let mut value_map: HashMap<Value, Value> = HashMap::from([(old_args[0], iv)]);
        value_map.extend(old_args[1..].iter().copied().zip(carried.iter().copied()));
        for &op in ops {
            let cloned = clone_op(body, &source, op, &mut value_map);
            body.append_op(main_block, cloned);
        }
        carried = source.op(*yield_op).operands.iter().map(|&v| map_value(&value_map, v)).collect();
    }
    let mut b = Builder::at_end(body, main_block);
    b.span = source.span(lp);
    b.op(Opcode::Yield, carried, &[], Attrs::new());

    let mut operands = vec![lb, main_ub, span];
    operands.extend(inits);
    let loop_index = body.blocks[parent].ops.iter().position(|&o| o == lp).expect("the loop is in its block");
    let mut b = Builder::at(body, parent, loop_index);
    b.span = source.span(lp);
    let main = b.op_with_regions(Opcode::For, operands, &carried_types, data.attrs.clone(), vec![main_block]);

    // The original loop runs what is left, from where the main loop stopped.
    let main_results = body.op(main).results.clone();
    let remainder = &mut body.ops[lp];
    remainder.operands[0] = main_ub;
    for (k, &result) in main_results.iter().enumerate() {
        remainder.operands[3 + k] = result;
    }
    main
}
