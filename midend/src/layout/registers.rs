//! Tensors in registers, as both backends lower them: which elements a thread holds, and how
//! values move between layouts.
//!
//! A tensor value lowers to one virtual register per register index of its linear layout; thread
//! `(lane, warp)` holds, in register `i`, the element at coordinate `C_reg(i) ⊕ C_thread`, where
//! `C_reg(i)` is a compile-time constant (the XOR of register bases) and `C_thread` the XOR of the
//! lane and warp bases selected by the thread's id bits, computed once in the prologue. For
//! blocked and slice layouts the register bits and the thread bits of a coordinate never
//! overlap, so the XOR is a sum: an affine function of the coordinate (a shared-memory address)
//! is a per-layout runtime base plus a per-register constant. [`LayoutInfo::additive`] records
//! that property; the emitter refuses layouts without it.
//!
//! Moving a value to another layout (or another shape: broadcast, expand_dims, reshape, trans,
//! reductions) is either a pure register renaming, when every destination register's element
//! sits in the same thread's source registers ([`register_map`]), or a round trip through shared
//! memory: every thread writes its elements at an affine index, a barrier, every thread reads the
//! elements it needs.

use std::collections::HashMap;

use super::{InDim, LinearLayout};

/// A layout specialized to one shape, with what the emitter needs precomputed.
#[derive(Debug)]
pub struct LayoutInfo {
    pub shape: Vec<u32>,
    pub linear: LinearLayout,
    /// The constant coordinate of each register index.
    pub reg_coords: Vec<Vec<u32>>,
    pub lane_bases: Vec<Vec<u32>>,
    pub warp_bases: Vec<Vec<u32>>,
    /// Thread and register bits never overlap within a dim (coordinates are sums).
    pub additive: bool,
}

impl LayoutInfo {
    pub fn new(linear: LinearLayout) -> LayoutInfo {
        let shape = linear.out_shape().to_vec();
        let rank = shape.len();
        let reg_bases = linear.bases(InDim::Register).to_vec();
        let lane_bases = linear.bases(InDim::Lane).to_vec();
        let warp_bases = linear.bases(InDim::Warp).to_vec();
        let n = 1usize << reg_bases.len();
        let mut reg_coords = Vec::with_capacity(n);
        for i in 0..n {
            let mut c = vec![0u32; rank];
            for (b, basis) in reg_bases.iter().enumerate() {
                if i >> b & 1 == 1 {
                    for d in 0..rank {
                        c[d] ^= basis[d];
                    }
                }
            }
            reg_coords.push(c);
        }
        let mut additive = true;
        for d in 0..rank {
            let reg_bits = reg_bases.iter().fold(0u32, |a, v| a | v[d]);
            let mut thread_bits = 0u32;
            for v in lane_bases.iter().chain(&warp_bases) {
                if thread_bits & v[d] != 0 {
                    additive = false;
                }
                thread_bits |= v[d];
            }
            if reg_bits & thread_bits != 0 {
                additive = false;
            }
        }
        LayoutInfo { shape, linear, reg_coords, lane_bases, warp_bases, additive }
    }

    pub fn num_regs(&self) -> usize {
        self.reg_coords.len()
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Lane and warp bits whose bases are zero or repeat: those threads hold copies.
    pub fn replica_masks(&self) -> (u32, u32) {
        let mut lane = 0;
        let mut warp = 0;
        for (dim, mask) in self.linear.free_variable_masks() {
            match dim {
                InDim::Lane => lane |= mask,
                InDim::Warp => warp |= mask,
                _ => {}
            }
        }
        (lane, warp)
    }

    /// Register indices that hold the first copy of their element (later registers with the same
    /// constant coordinate are duplicates).
    pub fn unique_registers(&self) -> Vec<bool> {
        let mut seen = std::collections::HashSet::new();
        self.reg_coords.iter().map(|c| seen.insert(c.clone())).collect()
    }
}

pub fn row_major_strides(shape: &[u32]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1] as i64;
    }
    strides
}

/// An affine function of a coordinate: `Σ coeffs[d] * c[d] + offset`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Affine {
    pub coeffs: Vec<i64>,
    pub offset: i64,
}

impl Affine {
    pub fn row_major(shape: &[u32]) -> Affine {
        Affine { coeffs: row_major_strides(shape), offset: 0 }
    }

    pub fn eval(&self, c: &[u32]) -> i64 {
        self.coeffs.iter().zip(c).map(|(k, &x)| k * x as i64).sum::<i64>() + self.offset
    }
}

/// For every register of `dst`, the register of `src` in the same thread holding the element
/// `map(dst coordinate)`; `None` when some element lives in another thread. `map` must be linear
/// over GF(2) (a projection, a permutation, zeroing a dim, inserting a zero dim).
pub fn register_map(
    dst: &LayoutInfo,
    src: &LayoutInfo,
    map: &dyn Fn(&[u32]) -> Vec<u32>,
) -> Option<Vec<usize>> {
    let same_threads = |d: &[Vec<u32>], s: &[Vec<u32>]| {
        let n = d.len().max(s.len());
        (0..n).all(|b| {
            let mapped = d.get(b).map(|v| map(v)).unwrap_or_else(|| vec![0; src.rank()]);
            let expected = s.get(b).cloned().unwrap_or_else(|| vec![0; src.rank()]);
            mapped == expected
        })
    };
    if !same_threads(&dst.lane_bases, &src.lane_bases) || !same_threads(&dst.warp_bases, &src.warp_bases) {
        return None;
    }
    // The first register of `src` holding each coordinate, looked up in a map: a search per
    // register is quadratic, seconds for the 32768 registers of a 2^20-element tensor on a warp.
    let mut first: HashMap<&[u32], usize> = HashMap::with_capacity(src.reg_coords.len());
    for (i, c) in src.reg_coords.iter().enumerate() {
        first.entry(c.as_slice()).or_insert(i);
    }
    let mut out = Vec::with_capacity(dst.num_regs());
    for c in &dst.reg_coords {
        let want = map(c);
        out.push(*first.get(want.as_slice())?);
    }
    Some(out)
}

/// The source coordinate a result coordinate takes.
pub type CoordMap = Box<dyn Fn(&[u32]) -> Vec<u32>>;

/// How a shape op (broadcast, expand_dims, trans) moves elements, for
/// `relayout`: the source coordinate each result coordinate takes, and the shared-memory index
/// (the source written row-major) at which a result coordinate reads it when the move is not a
/// register renaming.
pub struct ShapeMove {
    pub source_of: CoordMap,
    pub read: Affine,
}

impl ShapeMove {
    /// `tt.broadcast` from `src_shape`: size-1 source dims read coordinate 0.
    pub fn broadcast(src_shape: &[u32]) -> ShapeMove {
        let shape = src_shape.to_vec();
        let mut read = Affine::row_major(src_shape);
        for (d, &s) in src_shape.iter().enumerate() {
            if s == 1 {
                read.coeffs[d] = 0;
            }
        }
        let source_of = move |c: &[u32]| -> Vec<u32> {
            c.iter().zip(&shape).map(|(&x, &s)| if s == 1 { 0 } else { x }).collect()
        };
        ShapeMove { source_of: Box::new(source_of), read }
    }

    /// `tt.expand_dims` of `src_shape` at `axis`: the new dim is dropped.
    pub fn expand_dims(src_shape: &[u32], axis: usize) -> ShapeMove {
        let mut read = Affine::row_major(src_shape);
        read.coeffs.insert(axis, 0);
        let source_of = move |c: &[u32]| -> Vec<u32> {
            let mut v = c.to_vec();
            v.remove(axis);
            v
        };
        ShapeMove { source_of: Box::new(source_of), read }
    }

    /// `tt.trans` of `src_shape` by `order`: result dim `i` is source dim `order[i]`, so result
    /// coordinate `c` reads source coordinate `s` with `s[order[i]] = c[i]`.
    pub fn trans(src_shape: &[u32], order: &[usize]) -> ShapeMove {
        let strides = row_major_strides(src_shape);
        let read = Affine { coeffs: order.iter().map(|&o| strides[o]).collect(), offset: 0 };
        let order = order.to_vec();
        let source_of = move |c: &[u32]| -> Vec<u32> {
            let mut s = vec![0; c.len()];
            for (i, &o) in order.iter().enumerate() {
                s[o] = c[i];
            }
            s
        };
        ShapeMove { source_of: Box::new(source_of), read }
    }
}
