//! Tensor construction and shape ops: `arith.constant`, `tt.make_range`, `tt.splat`,
//! `ttg.convert_layout`, `tt.broadcast`, `tt.expand_dims`, `tt.trans`, `tt.reshape`, `tt.join`,
//! `tt.split`, `tt.cat`, `tt.gather`.
//!
//! None of them computes anything: each says where every result element comes from. A move
//! that keeps every element in its thread is a renaming of registers ([`Isa::relayout`]); any
//! other goes through scratch memory, the source written at one affine index of its coordinate
//! and the result read at another ([`ShapeMove`] gives both for broadcast, expand_dims and
//! trans). Reshape, join, split and cat always go through memory: their row-major element
//! order is what they preserve, so the source is written row-major and read back by the
//! result's row-major index (join and split interleave the two halves on the minor dim, cat puts
//! the second operand after the first).

use std::rc::Rc;

use super::error::Result;
use super::isa::Isa;
use crate::ir::{Attr, Op, Opcode};
use crate::layout::registers::{Affine, LayoutInfo, ShapeMove};

/// `arith.constant`: one register, the same in every register of a tensor.
pub fn constant<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let ty = e.ty(data.results[0]);
    let value = data.attrs.get("value").cloned().unwrap_or(Attr::Int(0));
    let r = e.constant(ty.dtype(), &value)?;
    let n = e.num_regs(ty)?;
    e.set(data.results[0], vec![r; n]);
    Ok(())
}

/// `tt.make_range`: each register's coordinate along dim 0, plus `start`.
pub fn make_range<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let start = data.attrs.int("start").unwrap_or(0);
    let l = e.layout(data.results[0])?;
    let coords = e.coord_regs(&l, 0);
    let regs = coords.into_iter().map(|c| e.add_imm(c, start)).collect();
    e.set(data.results[0], regs);
    Ok(())
}

/// `tt.splat`: the scalar's register in every register of the result.
pub fn splat<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let s = e.get(data.operands[0])?[0];
    let n = e.layout(data.results[0])?.num_regs();
    e.set(data.results[0], vec![s; n]);
    Ok(())
}

/// `ttg.convert_layout`, `tt.broadcast`, `tt.expand_dims`, `tt.trans`: each result coordinate
/// takes one source element, as [`ShapeMove`] says (the same coordinate for a conversion, which
/// goes through the target's scratch arrangement when threads must exchange elements).
pub fn move_elements<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let (src, sl, dl) = source_and_layouts(e, op)?;
    let moved = match data.opcode {
        Opcode::ConvertLayout => {
            let scratch = e.conversion_scratch(&sl, &dl);
            ShapeMove { source_of: Box::new(|c| c.to_vec()), read: scratch }
        }
        Opcode::Broadcast => ShapeMove::broadcast(&sl.shape),
        Opcode::ExpandDims => ShapeMove::expand_dims(&sl.shape, data.attrs.int("axis").unwrap_or(0) as usize),
        _ => {
            let order: Vec<usize> =
                data.attrs.ints("order").unwrap_or(&[]).iter().map(|&o| o as usize).collect();
            ShapeMove::trans(&sl.shape, &order)
        }
    };
    // A conversion writes where it reads; the other moves write the source row-major.
    let write =
        if data.opcode == Opcode::ConvertLayout { moved.read.clone() } else { Affine::row_major(&sl.shape) };
    let r = e.relayout(&src, &sl, &dl, &*moved.source_of, &write, &moved.read)?;
    e.set(data.results[0], r);
    Ok(())
}

/// `tt.reshape`: row-major element order is what it preserves, so the result reads at the same
/// linear index the source was written at.
pub fn reshape<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let (src, sl, dl) = source_and_layouts(e, op)?;
    let read = Affine::row_major(&dl.shape);
    let r = if sl.shape == dl.shape {
        e.relayout(&src, &sl, &dl, &|c| c.to_vec(), &read, &read)?
    } else {
        let class = e.element_class(&src)?;
        write_row_major(e, &src, &sl)?;
        e.read_shared(&dl, &read, class)
    };
    e.set(data.results[0], r);
    Ok(())
}

/// `tt.join`: `a` and `b` interleaved along a new minor dim of size 2.
pub fn join<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    two_into_one(e, op, |shape| {
        let mut write = Affine::row_major(shape);
        write.coeffs.pop();
        (write, 1)
    })
}

/// `tt.cat`: `b` after `a` along dim 0.
pub fn cat<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    two_into_one(e, op, |shape| (Affine::row_major(shape), numel(shape) as i64 / 2))
}

/// `tt.split`: the two halves of the minor dim (of size 2), the inverse of join.
pub fn split<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let (src, sl, dl) = source_and_layouts(e, op)?;
    let class = e.element_class(&src)?;
    write_row_major(e, &src, &sl)?;
    let mut read = Affine::row_major(&sl.shape);
    read.coeffs.pop();
    let lo = e.read_shared(&dl, &read, class);
    read.offset = 1;
    let hi = e.read_shared(&dl, &read, class);
    e.set(data.results[0], lo);
    e.set(data.results[1], hi);
    Ok(())
}

/// Join and cat: both operands written into the result's row-major buffer, `a` at `place(result
/// shape).0` and `b` that far plus `.1` elements, then read back in the result's layout.
fn two_into_one<'a, B: Isa<'a>>(e: &mut B, op: Op, place: impl Fn(&[u32]) -> (Affine, i64)) -> Result<()> {
    let data = e.func.body.op(op);
    let a = e.get(data.operands[0])?;
    let b = e.get(data.operands[1])?;
    let sl = e.layout(data.operands[0])?;
    let dl = e.layout(data.results[0])?;
    let class = e.element_class(&a)?;
    let elements = numel(&dl.shape);
    let (mut write, b_offset) = place(&dl.shape);
    e.barrier();
    e.write_shared(&a, &sl, &write, elements)?;
    write.offset = b_offset;
    e.write_shared(&b, &sl, &write, elements)?;
    e.barrier();
    let r = e.read_shared(&dl, &Affine::row_major(&dl.shape), class);
    e.set(data.results[0], r);
    Ok(())
}

/// `tt.gather`: the source is written row-major to scratch memory, and each result register reads
/// the element at its own coordinate with the coordinate along `axis` replaced by its index
/// register's value (the index has the result's layout, which the verifier and the layout passes
/// keep: the result is of the index's shape).
pub fn gather<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<()> {
    let data = e.func.body.op(op);
    let axis = data.attrs.int("axis").unwrap_or(0) as usize;
    if e.ty(data.operands[1]).encoding() != e.ty(data.results[0]).encoding() {
        return e.invalid("tt.gather's index and result have different layouts");
    }
    let (src, sl, dl) = source_and_layouts(e, op)?;
    let index = e.get(data.operands[1])?;
    let class = e.element_class(&src)?;
    write_row_major(e, &src, &sl)?;
    let mut read = Affine::row_major(&sl.shape);
    let stride = std::mem::take(&mut read.coeffs[axis]);
    let r = e.read_shared_at(&dl, &read, &index, stride, class);
    e.set(data.results[0], r);
    Ok(())
}

/// Writes `src` (layout `l`) row-major to scratch memory, between two barriers.
fn write_row_major<'a, B: Isa<'a>>(e: &mut B, src: &[B::Reg], l: &LayoutInfo) -> Result<()> {
    e.barrier();
    e.write_shared(src, l, &Affine::row_major(&l.shape), numel(&l.shape))?;
    e.barrier();
    Ok(())
}

fn numel(shape: &[u32]) -> u64 {
    shape.iter().map(|&d| d as u64).product()
}

/// A shape op's source registers, the source's layout and the result's.
type Source<R> = (Vec<R>, Rc<LayoutInfo>, Rc<LayoutInfo>);

/// The registers and layout of `op`'s first operand, and the layout of its first result.
fn source_and_layouts<'a, B: Isa<'a>>(e: &mut B, op: Op) -> Result<Source<B::Reg>> {
    let data = e.func.body.op(op);
    let src = e.get(data.operands[0])?;
    let sl = e.layout(data.operands[0])?;
    let dl = e.layout(data.results[0])?;
    Ok((src, sl, dl))
}
