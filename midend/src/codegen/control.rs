//! Structured control flow: `scf.for`, `scf.if` and `scf.while`, read once into views of their
//! operands, regions and results, then lowered by the target's [`LowerControl`] rules.
//!
//! Conditions and bounds are scalars, the same in every thread, so every branch is uniform and
//! barriers inside regions stay legal on every target. How values cross region boundaries is
//! the target's: fresh registers and parallel copies in PTX, function variables in SPIR-V.

use super::error::Result;
use super::isa::Isa;
use crate::ir::{Block, DType, Op, Opcode, Value};

/// The target's rules for structured control flow (its `control.rs`).
pub trait LowerControl<'a>: Isa<'a> {
    fn scf_for(e: &mut Self, op: ForOp<Self::Reg>) -> Result<()>;
    fn scf_if(e: &mut Self, op: IfOp<Self::Reg>) -> Result<()>;
    fn scf_while(e: &mut Self, op: WhileOp<Self::Reg>) -> Result<()>;
}

/// `scf.for`: `for iv in lower..upper by step`, with carried values.
pub struct ForOp<R> {
    pub lower: R,
    pub upper: R,
    pub step: R,
    /// The induction variable's type (the bounds').
    pub iv_type: DType,
    /// The registers of the carried values' initial values (a splat has one).
    pub inits: Vec<Vec<R>>,
    pub body: Block,
    /// The body's arguments: the induction variable, then the carried values.
    pub args: Vec<Value>,
    pub results: Vec<Value>,
}

/// `scf.if`, with the values both regions yield.
pub struct IfOp<R> {
    pub cond: R,
    pub then_block: Block,
    pub else_block: Block,
    pub results: Vec<Value>,
}

/// `scf.while`: `before` computes the condition (its `scf.condition` forwards values to
/// `after` and to the results), `after` yields the next carried values.
pub struct WhileOp<R> {
    pub inits: Vec<Vec<R>>,
    pub before: Block,
    pub after: Block,
    pub before_args: Vec<Value>,
    pub after_args: Vec<Value>,
    pub results: Vec<Value>,
}

/// Lowers `scf.for`, `scf.if` or `scf.while`.
pub fn lower<'a, B: LowerControl<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let inits = |e: &B, values: &[Value]| values.iter().map(|&v| e.get(v)).collect::<Result<Vec<_>>>();
    match data.opcode {
        Opcode::For => {
            let (lower, upper, step) =
                (e.get(data.operands[0])?[0], e.get(data.operands[1])?[0], e.get(data.operands[2])?[0]);
            let body = data.regions[0];
            let for_op = ForOp {
                lower,
                upper,
                step,
                iv_type: e.ty(data.operands[0]).dtype(),
                inits: inits(e, &data.operands[3..])?,
                body,
                args: e.func.body.blocks[body].args.clone(),
                results: data.results.clone(),
            };
            B::scf_for(e, for_op)
        }
        Opcode::If => {
            let if_op = IfOp {
                cond: e.get(data.operands[0])?[0],
                then_block: data.regions[0],
                else_block: data.regions[1],
                results: data.results.clone(),
            };
            B::scf_if(e, if_op)
        }
        _ => {
            let (before, after) = (data.regions[0], data.regions[1]);
            let while_op = WhileOp {
                inits: inits(e, &data.operands)?,
                before,
                after,
                before_args: e.func.body.blocks[before].args.clone(),
                after_args: e.func.body.blocks[after].args.clone(),
                results: data.results.clone(),
            };
            B::scf_while(e, while_op)
        }
    }
}

/// The registers of a region terminator's operands, skipping the first `skip` (a yield's values,
/// or what an `scf.condition` forwards after its flag).
pub fn yielded<'a, B: Isa<'a>>(e: &B, block: Block, skip: usize) -> Result<Vec<Vec<B::Reg>>> {
    let Some(&term) = e.func.body.blocks[block].ops.last() else { return Ok(Vec::new()) };
    let operands = &e.func.body.op(term).operands;
    operands.iter().skip(skip).map(|&v| e.get(v)).collect()
}

/// The flag of the `scf.condition` that ends a while loop's `before` region.
pub fn condition<'a, B: Isa<'a>>(e: &B, before: Block) -> Result<B::Reg> {
    let Some(&cond_op) = e.func.body.blocks[before].ops.last() else {
        return e.invalid("scf.while without scf.condition");
    };
    Ok(e.get(e.func.body.op(cond_op).operands[0])?[0])
}

/// Binds each value to its registers.
pub fn bind<'a, B: Isa<'a>>(e: &mut B, values: &[Value], regs: Vec<Vec<B::Reg>>) {
    for (&v, r) in values.iter().zip(regs) {
        e.set(v, r);
    }
}
