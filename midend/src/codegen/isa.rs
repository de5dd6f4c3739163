//! [`Isa`]: the instruction-level primitives the shared rules are written in.
//!
//! Each primitive is one small step whose spelling is the target's: a register or SSA value for a
//! constant, an integer add, a write of a tensor's registers to scratch memory. The provided
//! methods (thread coordinates, affine bases, layout changes) are the algorithms built on them,
//! the same for every target.

use std::fmt::Debug;
use std::hash::Hash;
use std::ops::DerefMut;
use std::rc::Rc;

use super::error::Result;
use super::indexing::{self, Lines};
use super::lowering::Lowering;
use crate::ir::{Attr, Block, DType};
use crate::layout::registers::{register_map, Affine, LayoutInfo};

/// What a backend's emitter provides to the shared rules. It dereferences to the
/// [`Lowering`] state of the function it lowers ([`crate::deref_to_lowering`]).
pub trait Isa<'a>: DerefMut<Target = Lowering<'a, Self::Reg>> {
    /// A register (PTX) or SSA value (SPIR-V), with its class.
    type Reg: Copy + Eq + Hash + Debug;
    /// What a register holds (its type as the target sees it).
    type Class: Copy + Eq + Debug;

    /// The backend's name, for messages (`nvptx`, `spirv`).
    const NAME: &'static str;

    // ---- thread indices, computed once in the prologue ----------------------------------------

    /// A 32-bit zero in the prologue, to accumulate into (a fresh register where registers are
    /// written in place).
    fn prologue_zero(&mut self) -> Self::Reg;

    /// In the prologue: `acc ^ ((id >> bit) & 1) * scale` on 32-bit integers.
    fn prologue_xor_bit(&mut self, acc: Self::Reg, id: Self::Reg, bit: u32, scale: u32) -> Self::Reg;

    /// In the prologue: `acc + x * k` on 32-bit integers.
    fn prologue_mul_add(&mut self, acc: Self::Reg, x: Self::Reg, k: i64) -> Self::Reg;

    // ---- values -------------------------------------------------------------------------------

    /// `a + k` on 32-bit integers, in the body, emitted even when `k` is 0.
    fn add_const(&mut self, a: Self::Reg, k: i64) -> Self::Reg;

    /// A register holding the constant `value` (an attribute's number) of `d`.
    fn constant(&mut self, d: DType, value: &Attr) -> Result<Self::Reg>;

    /// The one class of a tensor's registers, as scratch memory stores them (an error where
    /// the registers cannot share one buffer).
    fn element_class(&self, regs: &[Self::Reg]) -> Result<Self::Class>;

    /// Lowers every op of `block` in order (a region's body, such as a combine function).
    fn block(&mut self, block: Block) -> Result<()>;

    // ---- scratch memory ------------------------------------------------------------------------

    /// A barrier of every thread that takes part in the program's scratch-memory exchanges.
    fn barrier(&mut self);

    /// Writes every register of `src` (layout `l`) that holds the first copy of its element at
    /// element index `write(coordinate)` of the scratch buffer, a buffer of `elements` elements of
    /// the registers' [`Isa::element_class`]. Call [`Isa::barrier`] before (the buffer may still
    /// be read) and after.
    fn write_shared(
        &mut self,
        src: &[Self::Reg],
        l: &LayoutInfo,
        write: &Affine,
        elements: u64,
    ) -> Result<()>;

    /// Reads, for every register of layout `dst_l`, the element at index `read(coordinate)` of the
    /// scratch buffer.
    fn read_shared(&mut self, dst_l: &LayoutInfo, read: &Affine, class: Self::Class) -> Vec<Self::Reg>;

    /// Reads, for every register `i` of layout `dst_l`, the element at index
    /// `read(coordinate) + index[i] * stride` of the scratch buffer: `index[i]` is the register's
    /// own integer (a gather's position along its axis, which `read` leaves out), read as 32 bits.
    fn read_shared_at(
        &mut self,
        dst_l: &LayoutInfo,
        read: &Affine,
        index: &[Self::Reg],
        stride: i64,
        class: Self::Class,
    ) -> Vec<Self::Reg>;

    /// The scratch indices of a `convert_layout` from `src` to `dst` that goes through memory:
    /// row-major, unless the target pads rows against bank conflicts.
    fn conversion_scratch(&self, src: &LayoutInfo, _dst: &LayoutInfo) -> Affine {
        Affine::row_major(&src.shape)
    }

    // ---- provided: thread indices and layout changes -------------------------------------------

    /// Per dim, this thread's coordinate contribution in layout `l` (prologue registers, cached).
    fn thread_coords(&mut self, l: &LayoutInfo) -> Rc<Vec<Self::Reg>> {
        indexing::thread_coords(self, l)
    }

    /// The runtime part of `f(coordinate)` for this thread in layout `l`: the per-register part
    /// is `f(reg_coords[i]) - f.offset` (a prologue register, cached).
    fn affine_base(&mut self, l: &LayoutInfo, f: &Affine) -> Self::Reg {
        indexing::affine_base(self, l, f)
    }

    /// Per register of a value of layout `l`: its element's coordinate along `dim`.
    fn coord_regs(&mut self, l: &LayoutInfo, dim: usize) -> Vec<Self::Reg> {
        indexing::coord_regs(self, l, dim)
    }

    /// Where the registers of layout `l` sit along `dim` (the start of each one's line, and its
    /// position in it).
    fn lines_along(&mut self, l: &LayoutInfo, dim: usize) -> Lines<Self::Reg> {
        indexing::lines_along(self, l, dim)
    }

    /// `a + k` on 32-bit integers; `a` itself when `k` is 0.
    fn add_imm(&mut self, a: Self::Reg, k: i64) -> Self::Reg {
        if k == 0 {
            a
        } else {
            self.add_const(a, k)
        }
    }

    /// Moves `src` (layout `src_l`) to `dst_l`, where destination coordinate `c` takes the source
    /// element `map(c)`: by renaming registers when every element stays in its thread, else
    /// through scratch memory, the source written at `write` (element indices of its coordinates)
    /// and read back at `read`.
    fn relayout(
        &mut self,
        src: &[Self::Reg],
        src_l: &LayoutInfo,
        dst_l: &LayoutInfo,
        map: &dyn Fn(&[u32]) -> Vec<u32>,
        write: &Affine,
        read: &Affine,
    ) -> Result<Vec<Self::Reg>> {
        if let Some(idx) = register_map(dst_l, src_l, map) {
            return Ok(idx.into_iter().map(|i| src[i]).collect());
        }
        let class = self.element_class(src)?;
        // One past the largest index `write` gives (its coefficients are not negative).
        let last: i64 = write.coeffs.iter().zip(&src_l.shape).map(|(&k, &d)| k * (d as i64 - 1)).sum();
        let elements = (write.offset + last + 1) as u64;
        self.barrier();
        self.write_shared(src, src_l, write, elements)?;
        self.barrier();
        Ok(self.read_shared(dst_l, read, class))
    }
}
