//! Fold splat conversions: `ttg.convert_layout` of a `tt.splat` or of a tensor `arith.constant`
//! becomes the same splat or constant built in the new layout.
//!
//! A splat holds one value in every element, so any layout of it is just as cheap to build as
//! the original, while a conversion goes through shared memory in the backends. accelerate-matmul
//! converts a loop's `tl.zeros` accumulator to the MMA layout after the layout cleanup has run;
//! for a 128x256 f32 accumulator that conversion was a 128 KiB shared-memory round trip per tile.
//!
//! Expects: TTGIR. Guarantees: the same values; no conversion reads a splat or a constant.

use std::collections::HashMap;

use crate::ir::{Module, Opcode};

pub fn run(module: &mut Module) {
    for function in &mut module.functions {
        let body = &mut function.body;
        let mut replaced = HashMap::new();
        for op in body.walk(function.entry) {
            if body.opcode(op) != Opcode::ConvertLayout {
                continue;
            }
            let source = body.op(op).operands[0];
            let Some(producer) = body.def_op(source) else { continue };
            if !matches!(body.opcode(producer), Opcode::Splat | Opcode::Constant) {
                continue;
            }
            let data = body.op(producer).clone();
            let result = body.op(op).results[0];
            let ty = body.ty(result).clone();
            let span = body.span(op);
            let clone = body.create_op(data.opcode, data.operands, &[ty], data.attrs, Vec::new(), span);
            let block = body.op(op).parent.expect("the conversion is in a block");
            let index = body.blocks[block].ops.iter().position(|&o| o == op).expect("in its block");
            body.insert_op(block, index, clone);
            replaced.insert(result, body.result(clone));
        }
        body.replace_uses(function.entry, &replaced);
    }
}
