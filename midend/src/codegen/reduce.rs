//! `tt.reduce`, read off the linear layout of its operand, as Triton does:
//! 1. inside a thread, registers that differ only along the axis are combined in register order
//!    (one group per coordinate with the axis zeroed);
//! 2. across threads, the target combines each group's partials over the lane and warp bits whose
//!    bases point along the axis ([`LowerReduce::reduce_across_threads`]: warp shuffles and shared
//!    memory in PTX, workgroup memory in SPIR-V);
//! 3. the result sits in the registers of the slice layout, matched by coordinate, copied in
//!    every thread that the slice replicates.
//!
//! `tt.scan` is in [`super::scan`]; both emit their combine region inline
//! ([`super::combine::combine`]).

use rustc_hash::FxHashMap;
use std::rc::Rc;

use super::combine::combine;
use super::error::Result;
use super::isa::Isa;
use super::scan::Scan;
use crate::ir::{Block, Op};
use crate::layout::registers::{Affine, LayoutInfo};

/// The target's rules for reductions and scans across threads (its `reduce.rs`).
pub trait LowerReduce<'a>: Isa<'a> {
    /// Combines every group's partials across the threads that hold parts of it (the lane and
    /// warp bits along the axis), leaving each thread with its groups' whole reductions.
    fn reduce_across_threads(e: &mut Self, op: &ReduceOp, groups: &mut [Group<Self::Reg>]) -> Result<()>;

    /// Elements of `class` in one 8-byte scratch slot (a scan gives every element one).
    fn slot_elements(class: Self::Class) -> i64;

    /// The walk of a scan over its elements in scratch memory ([`Scan::write_slots`] wrote them):
    /// per operand, the result registers in the layout's register order.
    fn scan(e: &mut Self, scan: &Scan<Self::Reg, Self::Class>) -> Result<Vec<Vec<Self::Reg>>>;
}

/// A reduction being lowered: its axis, combine region and operand layout.
pub struct ReduceOp {
    pub axis: usize,
    pub region: Block,
    /// The operands' layout.
    pub layout: Rc<LayoutInfo>,
}

/// The partials of one group of a thread's registers: its key (a coordinate with the axis
/// zeroed) and one partial per operand.
pub type Group<R> = (Vec<u32>, Vec<R>);

impl ReduceOp {
    /// Where a group's partials go in scratch memory: the row-major index of its key in the
    /// result shape (the operand shape without the axis), and how many groups there are.
    pub fn group_slots(&self) -> (Affine, i64) {
        let (axis, shape) = (self.axis, &self.layout.shape);
        let mut result_shape = shape.clone();
        result_shape.remove(axis);
        let mut nonaxis = Affine::row_major(&result_shape);
        nonaxis.coeffs.insert(axis, 0);
        let groups_total: i64 =
            shape.iter().enumerate().filter(|(d, _)| *d != axis).map(|(_, &s)| s as i64).product();
        (nonaxis, groups_total)
    }
}

/// Lowers `tt.reduce`.
pub fn lower<'a, B: LowerReduce<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let axis = data.attrs.int("axis").unwrap_or(0) as usize;
    let region = data.regions[0];
    let srcs: Vec<Vec<B::Reg>> = data.operands.iter().map(|&v| e.get(v)).collect::<Result<_>>()?;
    let layout = e.layout(data.operands[0])?;
    let n = data.operands.len();
    let reduce = ReduceOp { axis, region, layout };

    // 1. Within the thread: group registers by their coordinate with the axis zeroed.
    let mut groups: Vec<Group<B::Reg>> = Vec::new();
    let mut index: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    for (i, c) in reduce.layout.reg_coords.iter().enumerate() {
        let mut key = c.clone();
        key[axis] = 0;
        let regs: Vec<B::Reg> = srcs.iter().map(|s| s[i]).collect();
        match index.get(&key) {
            Some(&g) => {
                let acc = groups[g].1.clone();
                groups[g].1 = combine(e, region, &acc, &regs)?;
            }
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, regs));
            }
        }
    }

    // 2. Across threads.
    B::reduce_across_threads(e, &reduce, &mut groups)?;

    // 3. Hand the partials to the result layout.
    let results = &data.results;
    if !e.ty(results[0]).is_tensor() {
        for (k, &r) in results.iter().enumerate() {
            e.set(r, vec![groups[0].1[k]]);
        }
        return Ok(());
    }
    let dl = e.layout(results[0])?;
    let mut per_result: Vec<Vec<B::Reg>> = vec![Vec::new(); n];
    for c in &dl.reg_coords {
        let mut key = c.clone();
        key.insert(axis, 0);
        let Some(&g) = index.get(&key) else {
            return e.invalid(format!("reduction result element {c:?} has no partial in this thread"));
        };
        for (k, out) in per_result.iter_mut().enumerate() {
            out.push(groups[g].1[k]);
        }
    }
    for (&r, regs) in results.iter().zip(per_result) {
        e.set(r, regs);
    }
    Ok(())
}
