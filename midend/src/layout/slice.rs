//! `#ttg.slice<{dim, parent}>`: the parent layout with one tensor dim squeezed out.
//!
//! A slice layout is what a reduction along `dim` produces, and what `expand_dims` consumes. In
//! linear-layout terms it is the parent map followed by the projection that forgets coordinate
//! `dim`: every basis loses its `dim` entry. Inputs that only moved along `dim` now move nowhere,
//! so their bases become zero. For lanes and warps that is the intended meaning ("all threads that
//! differed only along `dim` hold the same value"); for registers it would mean one thread holding
//! the same value twice, so [`slice`] drops the zero register bases, as Triton does, and a thread
//! of the slice holds fewer registers than a thread of the parent.
//!
//! Two functions are offered so that each guarantee is stated plainly:
//! - [`project_out`] is the exact projection: `project_out(p, d).apply(x)` equals `p.apply(x)`
//!   with coordinate `d` removed, for every hardware index `x`.
//! - [`slice`] is the layout a tensor of the reduced shape actually gets: the projection with the
//!   zero register bases removed. For every (lane, warp, block) it owns the same set of elements
//!   as the projection, only with the duplicate registers gone.
//!
//! [`Slice`] is the attribute form, `#ttg.slice<{dim, parent}>`, whose linear layout is built
//! from the parent's on the shape with a size-1 dim reinserted. `expand_dims` goes the other way:
//! its result takes the parent layout, and since the slice dropped only bases that moved along
//! `dim` (or duplicated registers), every element of the expanded tensor is already held by the
//! threads that held its row, which is why `expand_dims` of a slice costs nothing.

use std::fmt;

use super::blocked::Blocked;
use super::linear::{InDim, LayoutError, LinearLayout};

/// The exact projection of `parent` that forgets tensor dim `dim`; keeps every input bit.
pub fn project_out(parent: &LinearLayout, dim: usize) -> Result<LinearLayout, LayoutError> {
    let rank = parent.out_shape().len();
    if dim >= rank {
        return Err(LayoutError::Mismatch(format!("slice dim {dim} of a rank-{rank} layout")));
    }
    let remove = |coords: &[u32]| -> Vec<u32> {
        coords.iter().enumerate().filter(|&(d, _)| d != dim).map(|(_, &c)| c).collect()
    };
    let in_dims = parent
        .iter_bases()
        .map(|(in_dim, bases)| (in_dim, bases.iter().map(|basis| remove(basis)).collect()))
        .collect();
    LinearLayout::new(in_dims, remove(parent.out_shape()))
}

/// The layout of `parent`'s tensor reduced along `dim` (Triton's `#ttg.slice<{dim, parent}>`).
pub fn slice(parent: &LinearLayout, dim: usize) -> Result<LinearLayout, LayoutError> {
    Ok(project_out(parent, dim)?.without_zero_bases(InDim::Register))
}

/// The attribute itself, for printing and for passes that reason about slices before building
/// the linear form (remove-layout-conversions follows slices through reductions).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Slice<P> {
    /// The tensor dim removed from the parent.
    pub dim: u32,
    /// The parent layout's attribute (a blocked layout, an MMA layout, another slice).
    pub parent: P,
}

impl<P> Slice<P> {
    /// The shape the parent layout is built for: the sliced `shape` with a size-1 dim
    /// reinserted at `dim`, as Triton does. Any power-of-two size gives the same slice: bases
    /// along `dim` either fall outside a size-1 dim (and become zero) or are projected away.
    pub fn parent_shape(&self, shape: &[u32]) -> Vec<u32> {
        let mut parent_shape = shape.to_vec();
        parent_shape.insert(self.dim as usize, 1);
        parent_shape
    }

    /// The linear layout of the slice on a tensor of (sliced) `shape`, given the function that
    /// builds the parent's linear layout for a shape. Keeping the parent generic lets MMA and
    /// nested-slice parents reuse this once they have constructors.
    pub fn to_linear_with(
        &self,
        shape: &[u32],
        parent_to_linear: impl FnOnce(&P, &[u32]) -> Result<LinearLayout, LayoutError>,
    ) -> Result<LinearLayout, LayoutError> {
        let rank = shape.len() + 1;
        if self.dim as usize >= rank {
            return Err(LayoutError::Mismatch(format!("slice dim {} of a rank-{rank} parent", self.dim)));
        }
        let parent = parent_to_linear(&self.parent, &self.parent_shape(shape))?;
        slice(&parent, self.dim as usize)
    }
}

impl Slice<Blocked> {
    /// The linear layout of a slice of a blocked layout on a tensor of (sliced) `shape`.
    pub fn to_linear(&self, shape: &[u32]) -> Result<LinearLayout, LayoutError> {
        self.to_linear_with(shape, Blocked::to_linear)
    }
}

impl<P: fmt::Display> fmt::Display for Slice<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#ttg.slice<{{dim = {}, parent = {}}}>", self.dim, self.parent)
    }
}
