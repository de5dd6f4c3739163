//! Loop hints that trident records but does not apply yet, for the command line to report.
//!
//! `tl.range` takes performance hints along with its bounds. Those that change nothing about the
//! values a loop computes may be ignored by a compiler without changing results; trident applies
//! `num_stages` (pipeline-dot-loads) and `loop_unroll_factor` (unroll-loops), and reports the
//! rest here so that a user learns, with the Python line, that the hint has no effect:
//!
//! - `flatten=True` (Triton fuses a persistent kernel's tile loop with its K loop, so the
//!   pipeline does not drain between tiles): the loops run as written;
//! - `warp_specialize=True` (producer and consumer warpgroups), on loops whose dots read no tile
//!   through a tensor descriptor: trident specializes warps on sm_90a for loops whose dot tiles
//!   stream through TMA (pipeline-dot-loads), so every warp runs any other loop. (On other
//!   targets the hint changes nothing either, as in Triton, and goes unmentioned.)

use crate::ir::{Body, Module, Op, Opcode, Span};

/// One unapplied hint: the span of its loop and what the user should know.
#[derive(Clone, Debug, PartialEq)]
pub struct UnappliedHint {
    pub span: Span,
    pub message: String,
}

/// The hints of every loop of `module` (TTIR or TTGIR) that trident does not apply, in program
/// order, each source loop once (a function inlined at two calls has its loop twice: causal
/// attention's two passes).
pub fn unapplied_loop_hints(module: &Module) -> Vec<UnappliedHint> {
    let mut hints = Vec::new();
    for function in &module.functions {
        let body = &function.body;
        for op in body.walk(function.entry) {
            if body.opcode(op) != Opcode::For {
                continue;
            }
            let attrs = &body.op(op).attrs;
            let mut note = |message: &str| {
                let hint = UnappliedHint { span: body.span(op), message: message.into() };
                if !hints.contains(&hint) {
                    hints.push(hint);
                }
            };
            if attrs.bool("tt.flatten") == Some(true) {
                note("tl.range(flatten=True) is not applied: trident does not fuse nested loops yet, so the loops run as written");
            }
            if attrs.bool("tt.warp_specialize") == Some(true) && !dots_read_descriptor_tiles(body, op) {
                note("tl.range(warp_specialize=True) is not applied: trident specializes warps only for loops whose dots read their tiles through tensor descriptors (on sm_90a), so every warp runs this loop");
            }
        }
    }
    hints
}

/// Whether the dots of loop `lp` read at least one tile loaded through a tensor descriptor in
/// the loop and none loaded through pointers there (through transposes and layout conversions):
/// the loops whose loads a producer warpgroup can take over.
fn dots_read_descriptor_tiles(body: &Body, lp: Op) -> bool {
    let region = body.op(lp).regions[0];
    let in_loop = |op: Op| body.ancestor_in(region, op).is_some();
    let mut descriptor_tiles = false;
    for &op in &body.blocks[region].ops {
        if !body.opcode(op).is_dot() {
            continue;
        }
        for &operand in &body.op(op).operands[..2] {
            let mut v = operand;
            while let Some(def) = body.def_op(v).filter(|&d| in_loop(d)) {
                match body.opcode(def) {
                    Opcode::Trans | Opcode::ConvertLayout => v = body.op(def).operands[0],
                    Opcode::DescriptorLoad => {
                        descriptor_tiles = true;
                        break;
                    }
                    Opcode::Load => return false,
                    _ => break,
                }
            }
        }
    }
    descriptor_tiles
}
