//! `tt.scan` through scratch memory: every element is written to a slot of its own, then each
//! thread walks, for each of its registers, the prefix (or the suffix, `reverse`) of that element
//! along the axis, combining as it goes. Simple and exact, and independent of how threads are laid
//! out; a warp-level scan is the faster form to write later.
//!
//! The slots are 8 bytes, one array per operand, each element at its row-major index; the walk is
//! the target's ([`super::LowerReduce::scan`]): a loop of labels and registers in PTX, a
//! structured loop over function variables in SPIR-V.

use std::rc::Rc;

use super::error::Result;
use super::reduce::LowerReduce;
use crate::ir::{Block, Op, Value};
use crate::layout::registers::{row_major_strides, Affine, LayoutInfo};

/// A scan being lowered.
pub struct Scan<R, C> {
    pub axis: usize,
    /// Whether the scan runs from the last element backward.
    pub reverse: bool,
    pub region: Block,
    /// The operands' registers.
    pub srcs: Vec<Vec<R>>,
    /// Each operand's class, as scratch memory holds it.
    pub classes: Vec<C>,
    /// The operands' layout.
    pub layout: Rc<LayoutInfo>,
    results: Vec<Value>,
}

impl<R: Copy, C: Copy> Scan<R, C> {
    /// Elements per operand.
    pub fn numel(&self) -> i64 {
        self.layout.shape.iter().map(|&d| d as i64).product()
    }

    /// Elements along the axis.
    pub fn axis_len(&self) -> i64 {
        self.layout.shape[self.axis] as i64
    }

    /// The row-major distance between neighbours along the axis.
    pub fn stride(&self) -> i64 {
        row_major_strides(&self.layout.shape)[self.axis]
    }

    /// The axis coordinate the walk starts at.
    pub fn first(&self) -> i64 {
        if self.reverse {
            self.axis_len() - 1
        } else {
            0
        }
    }

    /// Writes every operand to its array of 8-byte slots, between two barriers.
    pub fn write_slots<'a, B: LowerReduce<'a, Reg = R, Class = C>>(&self, e: &mut B) -> Result<()> {
        let (l, numel, n) = (&self.layout, self.numel(), self.srcs.len() as i64);
        e.barrier();
        for (k, (s, &class)) in self.srcs.iter().zip(&self.classes).enumerate() {
            let per_slot = B::slot_elements(class);
            let f = Affine {
                coeffs: row_major_strides(&l.shape).iter().map(|x| x * per_slot).collect(),
                offset: k as i64 * numel * per_slot,
            };
            e.write_shared(s, l, &f, (numel * n * per_slot) as u64)?;
        }
        e.barrier();
        Ok(())
    }
}

/// Lowers `tt.scan`.
pub fn lower<'a, B: LowerReduce<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let srcs: Vec<Vec<B::Reg>> = data.operands.iter().map(|&v| e.get(v)).collect::<Result<_>>()?;
    let scan = Scan {
        axis: data.attrs.int("axis").unwrap_or(0) as usize,
        reverse: data.attrs.bool("reverse").unwrap_or(false),
        region: data.regions[0],
        layout: e.layout(data.operands[0])?,
        classes: srcs.iter().map(|s| e.element_class(s)).collect::<Result<_>>()?,
        srcs,
        results: data.results.clone(),
    };
    let outs = B::scan(e, &scan)?;
    for (&r, regs) in scan.results.iter().zip(outs) {
        e.set(r, regs);
    }
    Ok(())
}
