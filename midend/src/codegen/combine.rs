//! The combine region of `tt.reduce` and `tt.scan`, emitted inline wherever two partials meet.

use super::error::Result;
use super::isa::Isa;
use crate::ir::Block;

/// Emits the combine region on `(lhs..., rhs...)` (its block arguments bound to the partials'
/// registers) and returns the registers its terminator yields.
pub fn combine<'a, B: Isa<'a> + ?Sized>(
    e: &mut B,
    region: Block,
    lhs: &[B::Reg],
    rhs: &[B::Reg],
) -> Result<Vec<B::Reg>> {
    let func = e.func;
    for (k, &a) in func.body.blocks[region].args.iter().enumerate() {
        let r = if k < lhs.len() { lhs[k] } else { rhs[k - lhs.len()] };
        e.set(a, vec![r]);
    }
    e.block(region)?;
    let Some(&term) = func.body.blocks[region].ops.last() else {
        return e.invalid("combine region without terminator");
    };
    func.body.op(term).operands.iter().map(|&v| Ok(e.get(v)?[0])).collect()
}
