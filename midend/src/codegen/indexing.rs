//! Which element a thread holds, as code: the thread's coordinates in a layout, affine functions
//! of them (scratch-memory indices), and the coordinate of every register along a dim.
//!
//! Thread `(lane, warp)` holds, in register `i`, the element at `C_reg(i) ⊕ C_thread`
//! (`layout/registers.rs`). `C_thread` is computed once per layout in the prologue, one XOR of
//! `bit b of the id × basis value` per lane and warp basis; for the additive layouts the emitters
//! accept, an affine function `f` of the coordinate is then `f(C_thread)` (one prologue register
//! per layout and `f`) plus the constant `f(C_reg(i)) - f.offset`. Both results are cached per
//! layout, so every op on the same layout shares them.

use rustc_hash::FxHashMap;
use std::rc::Rc;

use super::isa::Isa;
use crate::layout::registers::{Affine, LayoutInfo};

/// Affine bases computed in the prologue, by layout text, shape and coefficients.
pub type AffineBases<R> = FxHashMap<(String, Vec<u32>, Vec<i64>), R>;

/// The prologue registers already computed, per layout.
pub(super) struct IndexCache<R> {
    thread_coords: FxHashMap<(String, Vec<u32>), Rc<Vec<R>>>,
    pub(super) affine_bases: AffineBases<R>,
}

impl<R> Default for IndexCache<R> {
    fn default() -> Self {
        IndexCache { thread_coords: FxHashMap::default(), affine_bases: FxHashMap::default() }
    }
}

/// Per dim, this thread's coordinate contribution (the XOR of its lane and warp bases),
/// computed once in the prologue.
pub(super) fn thread_coords<'a, B: Isa<'a> + ?Sized>(e: &mut B, l: &LayoutInfo) -> Rc<Vec<B::Reg>> {
    let key = (format!("{}", l.linear), l.shape.clone());
    if let Some(c) = e.index.thread_coords.get(&key) {
        return c.clone();
    }
    let (lane, warp) = (e.lane, e.warp);
    let mut coords = Vec::with_capacity(l.rank());
    for d in 0..l.rank() {
        let mut c = e.prologue_zero();
        for (bases, id) in [(&l.lane_bases, lane), (&l.warp_bases, warp)] {
            for (b, v) in bases.iter().enumerate() {
                if v[d] != 0 {
                    c = e.prologue_xor_bit(c, id, b as u32, v[d]);
                }
            }
        }
        coords.push(c);
    }
    let coords = Rc::new(coords);
    e.index.thread_coords.insert(key, coords.clone());
    coords
}

/// The runtime part of `f(coordinate)` for this thread (the per-register part is
/// `f(reg_coords[i]) - f.offset`), as a 32-bit register computed in the prologue.
pub(super) fn affine_base<'a, B: Isa<'a> + ?Sized>(e: &mut B, l: &LayoutInfo, f: &Affine) -> B::Reg {
    let key = (format!("{}", l.linear), l.shape.clone(), f.coeffs.clone());
    if let Some(&r) = e.index.affine_bases.get(&key) {
        return r;
    }
    let coords = thread_coords(e, l);
    let mut r = e.prologue_zero();
    for (d, &k) in f.coeffs.iter().enumerate() {
        if k != 0 {
            r = e.prologue_mul_add(r, coords[d], k);
        }
    }
    e.index.affine_bases.insert(key, r);
    r
}

/// Per register of a value: its element's coordinate along `dim`, as a 32-bit register (one add
/// per distinct constant part).
pub(super) fn coord_regs<'a, B: Isa<'a> + ?Sized>(e: &mut B, l: &LayoutInfo, dim: usize) -> Vec<B::Reg> {
    let mut f = Affine { coeffs: vec![0; l.rank()], offset: 0 };
    f.coeffs[dim] = 1;
    let base = affine_base(e, l, &f);
    let mut out = Vec::with_capacity(l.num_regs());
    let mut cache: FxHashMap<u32, B::Reg> = FxHashMap::default();
    for c in &l.reg_coords {
        let k = c[dim];
        let r = match cache.get(&k) {
            Some(&r) => r,
            None => {
                let r = e.add_const(base, k as i64);
                cache.insert(k, r);
                r
            }
        };
        out.push(r);
    }
    out
}

/// Where a thread's registers sit along one dim: what a walk along that dim (a scan, a row of a
/// sort) starts from.
pub struct Lines<R> {
    /// The row-major index of the start of an element's line (its coordinate along the dim zeroed).
    pub start: Affine,
    /// The thread's part of `start` (a register's part is `start.eval(reg_coords[i])`).
    pub base: R,
    /// Per register, its element's coordinate along the dim.
    pub pos: Vec<R>,
}

/// The lines of layout `l` along `dim`.
pub(super) fn lines_along<'a, B: Isa<'a> + ?Sized>(e: &mut B, l: &LayoutInfo, dim: usize) -> Lines<B::Reg> {
    let mut start = Affine::row_major(&l.shape);
    start.coeffs[dim] = 0;
    let base = affine_base(e, l, &start);
    let pos = coord_regs(e, l, dim);
    Lines { start, base, pos }
}
