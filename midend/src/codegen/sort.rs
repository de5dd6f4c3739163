//! `tt.histogram`, `tt.sort` and `tt.topk` through scratch memory.
//!
//! Sort (along the last dim) is a rank sort: the input is written to region 0 of the scratch
//! buffer (elements `0..numel`, row-major), each element counts the elements of its row that must
//! precede it (smaller, or equal and earlier, for ascending order) and is written at that rank of
//! its row in region 1 (`numel..2 numel`), and the result reads region 1 back in its layout; top-k
//! is a descending sort whose first k columns are read back. Simple, exact and stable; a bitonic
//! network is the faster form for large rows. The counting loop is the target's ([`LowerSort`]).

use std::rc::Rc;

use super::error::Result;
use super::isa::Isa;
use crate::ir::{DType, Op, Opcode, Value};
use crate::layout::registers::{row_major_strides, Affine, LayoutInfo};

/// The target's rules for histograms and sorts (its `sort.rs`).
pub trait LowerSort<'a>: Isa<'a> {
    /// `tt.histogram`: counts of the input's values in its bins, in the result's layout.
    fn histogram(e: &mut Self, op: Op) -> Result<()>;
    /// `tt.sort` and `tt.topk`: writes the input ([`SortOp::write_input`]), every element at
    /// its rank in region 1, and reads the result back ([`SortOp::read_sorted`]).
    fn sort(e: &mut Self, sort: &SortOp<Self::Reg, Self::Class>) -> Result<Vec<Self::Reg>>;
}

/// A `tt.sort` or `tt.topk` being lowered.
pub struct SortOp<R, C> {
    pub src: Vec<R>,
    pub dtype: DType,
    pub descending: bool,
    /// The input's layout.
    pub layout: Rc<LayoutInfo>,
    /// The class the elements are written in.
    pub class: C,
    pub result: Value,
}

impl<R: Copy, C: Copy> SortOp<R, C> {
    /// Elements of the input.
    pub fn numel(&self) -> i64 {
        self.layout.shape.iter().map(|&s| s as i64).product()
    }

    /// Elements per row.
    pub fn row_len(&self) -> i64 {
        self.layout.shape[self.layout.rank() - 1] as i64
    }

    /// Writes the input to region 0, between two barriers.
    pub fn write_input<'a, B: Isa<'a, Reg = R, Class = C>>(&self, e: &mut B) -> Result<()> {
        e.barrier();
        e.write_shared(
            &self.src,
            &self.layout,
            &Affine::row_major(&self.layout.shape),
            2 * self.numel() as u64,
        )?;
        e.barrier();
        Ok(())
    }

    /// Reads the sorted rows (region 1) in the result's layout; call it after a barrier.
    pub fn read_sorted<'a, B: Isa<'a, Reg = R, Class = C>>(&self, e: &mut B) -> Result<Vec<R>> {
        let dl = e.layout(self.result)?;
        let mut read = Affine { coeffs: row_major_strides(&self.layout.shape), offset: self.numel() };
        read.coeffs[self.layout.rank() - 1] = 1;
        Ok(e.read_shared(&dl, &read, self.class))
    }
}

/// Lowers `tt.histogram` (by the target's rule), `tt.sort` and `tt.topk`.
pub fn lower<'a, B: LowerSort<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    if data.opcode == Opcode::Histogram {
        return B::histogram(e, op);
    }
    let src = e.get(data.operands[0])?;
    let sort = SortOp {
        dtype: e.ty(data.operands[0]).dtype(),
        descending: data.opcode == Opcode::TopK || data.attrs.bool("descending").unwrap_or(false),
        layout: e.layout(data.operands[0])?,
        class: e.element_class(&src)?,
        src,
        result: data.results[0],
    };
    let r = B::sort(e, &sort)?;
    e.set(sort.result, r);
    Ok(())
}
